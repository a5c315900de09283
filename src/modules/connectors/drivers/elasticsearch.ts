import { configCheckConnector } from './config-check';

export const elasticsearchConnector = configCheckConnector('elasticsearch', 'search', [{ name: 'elastic' }]);
