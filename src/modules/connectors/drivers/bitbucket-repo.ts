import { configCheckConnector } from './config-check';

export const bitbucketRepoConnector = configCheckConnector('bitbucket_repo', 'repository');
