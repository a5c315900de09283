import { configCheckConnector } from './config-check';

export const neo4jConnector = configCheckConnector('neo4j', 'graph');
