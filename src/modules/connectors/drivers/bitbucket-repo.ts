import { httpUrl } from '../connector-config';
import { defineConnector } from '../connector-descriptor';
import { ConfigString, ConnectorConfig, FieldCheck, storedFields } from '../config-fields';
import { BrowseItem, DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { isPlainObject } from '../formats/records';
import { fileEntry } from './data-file';
import { apiUrl, getBytes, getJson, isRepoName, RepoDescription, repoHostDriver } from './repo-host';

export interface BitbucketRepoConfig {
  readonly workspace: string;
  readonly repo: string;
  readonly token?: string;
  /** The Bitbucket Cloud REST API 2.0 root. */
  readonly base_url: string;
  readonly ref?: string;
}

export const BITBUCKET_API = 'https://api.bitbucket.org/2.0';
const TREE_MAX_DEPTH = 20;

function headers(config: BitbucketRepoConfig): Record<string, string> {
  return config.token ? { Authorization: `Bearer ${config.token}` } : {};
}

function repoPath(config: BitbucketRepoConfig): string {
  return `repositories/${encodeURIComponent(config.workspace)}/${encodeURIComponent(config.repo)}`;
}

async function describe(config: BitbucketRepoConfig, ctx: DriverContext): Promise<RepoDescription> {
  const what = `the repository ${config.workspace}/${config.repo}`;
  const body = await getJson(apiUrl(config.base_url, repoPath(config)), headers(config), what, ctx);
  if (!isPlainObject(body) || typeof body.full_name !== 'string') {
    throw new ConnectorError('invalid_payload', `The answer for ${what} is not a Bitbucket repository.`);
  }
  const main = isPlainObject(body.mainbranch) ? body.mainbranch.name : undefined;
  if (typeof main !== 'string') {
    throw new ConnectorError('not_found', `The repository ${body.full_name} has no main branch yet.`);
  }
  const isPrivate = body.is_private === true;
  return {
    defaultBranch: main,
    message: `Read ${isPrivate ? 'private' : 'public'} repository ${body.full_name} (main branch ${main}).`,
    details: { full_name: body.full_name, main_branch: main, private: isPrivate },
  };
}

export const bitbucketRepoDriver = repoHostDriver<BitbucketRepoConfig>({
  describe,
  async listFiles(config, ref, max, ctx) {
    const what = `the tree of ${config.workspace}/${config.repo} at ${ref}`;
    const origin = new URL(config.base_url).origin;
    const files: BrowseItem[] = [];
    let next: string | undefined = apiUrl(
      config.base_url,
      `${repoPath(config)}/src/${encodeURIComponent(ref)}/?max_depth=${TREE_MAX_DEPTH}&pagelen=100`,
    );
    while (next !== undefined && files.length < max) {
      // The next page link is followed only on the configured server: the token is not sent anywhere else.
      if (new URL(next).origin !== origin) {
        throw new ConnectorError('remote_error', `The next page of ${what} is on another server.`);
      }
      const body = await getJson(next, headers(config), what, ctx);
      if (!isPlainObject(body) || !Array.isArray(body.values)) {
        throw new ConnectorError('invalid_payload', `The answer for ${what} is not a source listing.`);
      }
      for (const entry of body.values) {
        if (isPlainObject(entry) && entry.type === 'commit_file' && typeof entry.path === 'string') {
          files.push(fileEntry(entry.path, typeof entry.size === 'number' ? entry.size : undefined));
        }
      }
      next = typeof body.next === 'string' ? body.next : undefined;
    }
    return { files, complete: next === undefined };
  },
  readFile(config, path, ref, ctx) {
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    return getBytes(
      apiUrl(config.base_url, `${repoPath(config)}/src/${encodeURIComponent(ref)}/${encoded}`),
      headers(config),
      `${path} at ${ref}`,
      ctx,
    );
  },
});

const bitbucketSlug: FieldCheck<unknown> = (value) =>
  typeof value === 'string' && value.trim() !== '' && !isRepoName(value)
    ? 'must be a Bitbucket slug (letters, digits, "-", "_", ".")'
    : undefined;

export class BitbucketRepoConnectorConfig extends ConnectorConfig<BitbucketRepoConfig> {
  @ConfigString({ required: true, checks: [bitbucketSlug] })
  workspace!: string;

  @ConfigString({ aliases: ['repository', 'repo_slug'], required: true, checks: [bitbucketSlug] })
  repo!: string;

  @ConfigString({
    aliases: ['access_token'],
    secret: true,
    description: 'A repository or workspace access token.',
  })
  token?: string;

  @ConfigString({ default: BITBUCKET_API, checks: [httpUrl] })
  base_url?: string;

  @ConfigString({
    description: 'The branch, tag or commit read when a request names none; default the main branch.',
  })
  ref?: string;

  toConfig(): BitbucketRepoConfig {
    return storedFields<BitbucketRepoConfig>(this);
  }
}

export const bitbucketRepoConnector = defineConnector({
  name: 'bitbucket_repo',
  family: 'repository',
  config: BitbucketRepoConnectorConfig,
  selection: { path: 'required', ref: 'optional' },
  destinationFields: ['base_url'],
  driver: bitbucketRepoDriver,
});
