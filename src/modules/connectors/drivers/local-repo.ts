import { configCheckConnector } from './config-check';

export const localRepoConnector = configCheckConnector('local_repo', 'repository');
