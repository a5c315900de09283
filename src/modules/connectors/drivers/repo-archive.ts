import { configCheckConnector } from './config-check';

export const repoArchiveConnector = configCheckConnector('repo_archive', 'repository');
