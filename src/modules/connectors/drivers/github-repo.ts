import { configCheckConnector } from './config-check';

export const githubRepoConnector = configCheckConnector('github_repo', 'repository');
