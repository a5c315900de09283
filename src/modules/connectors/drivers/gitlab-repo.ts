import { configCheckConnector } from './config-check';

export const gitlabRepoConnector = configCheckConnector('gitlab_repo', 'repository');
