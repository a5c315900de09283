import { httpUrl } from '../connector-config';
import { defineConnector } from '../connector-descriptor';
import { ConfigString, ConnectorConfig, FieldCheck, storedFields } from '../config-fields';
import { DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { isPlainObject } from '../formats/records';
import { fileEntry } from './data-file';
import { apiUrl, getBytes, getJson, isRepoName, RepoDescription, repoHostDriver } from './repo-host';

export interface GithubRepoConfig {
  readonly owner: string;
  readonly repo: string;
  readonly token?: string;
  /** `https://api.github.com`, or a GitHub Enterprise Server's `https://host/api/v3`. */
  readonly base_url: string;
  readonly ref?: string;
}

export const GITHUB_API = 'https://api.github.com';

function headers(config: GithubRepoConfig, accept = 'application/vnd.github+json'): Record<string, string> {
  return {
    Accept: accept,
    'User-Agent': 'decision-service',
    'X-GitHub-Api-Version': '2022-11-28',
    ...(config.token ? { Authorization: `Bearer ${config.token}` } : {}),
  };
}

function repoPath(config: GithubRepoConfig): string {
  return `repos/${encodeURIComponent(config.owner)}/${encodeURIComponent(config.repo)}`;
}

async function describe(config: GithubRepoConfig, ctx: DriverContext): Promise<RepoDescription> {
  const what = `the repository ${config.owner}/${config.repo}`;
  const body = await getJson(apiUrl(config.base_url, repoPath(config)), headers(config), what, ctx);
  if (!isPlainObject(body) || typeof body.default_branch !== 'string') {
    throw new ConnectorError('invalid_payload', `The answer for ${what} is not a GitHub repository.`);
  }
  const fullName = typeof body.full_name === 'string' ? body.full_name : `${config.owner}/${config.repo}`;
  const isPrivate = body.private === true;
  return {
    defaultBranch: body.default_branch,
    message: `Read ${isPrivate ? 'private' : 'public'} repository ${fullName} (default branch ${body.default_branch}).`,
    details: { full_name: fullName, default_branch: body.default_branch, private: isPrivate },
  };
}

export const githubRepoDriver = repoHostDriver<GithubRepoConfig>({
  describe,
  async listFiles(config, ref, _max, ctx) {
    const what = `the tree of ${config.owner}/${config.repo} at ${ref}`;
    const body = await getJson(
      apiUrl(config.base_url, `${repoPath(config)}/git/trees/${encodeURIComponent(ref)}?recursive=1`),
      headers(config),
      what,
      ctx,
    );
    if (!isPlainObject(body) || !Array.isArray(body.tree)) {
      throw new ConnectorError('invalid_payload', `The answer for ${what} is not a git tree.`);
    }
    const files = body.tree
      .filter(
        (entry): entry is { path: string; size?: number } =>
          isPlainObject(entry) && entry.type === 'blob' && typeof entry.path === 'string',
      )
      .map((entry) => fileEntry(entry.path, typeof entry.size === 'number' ? entry.size : undefined));
    return { files, complete: body.truncated !== true };
  },
  readFile(config, path, ref, ctx) {
    const encoded = path.split('/').map(encodeURIComponent).join('/');
    return getBytes(
      apiUrl(config.base_url, `${repoPath(config)}/contents/${encoded}?ref=${encodeURIComponent(ref)}`),
      headers(config, 'application/vnd.github.raw+json'),
      `${path} at ${ref}`,
      ctx,
    );
  },
});

const githubName: FieldCheck<unknown> = (value) =>
  typeof value === 'string' && value.trim() !== '' && !isRepoName(value)
    ? 'must be a GitHub name (letters, digits, "-", "_", ".")'
    : undefined;

export class GithubRepoConnectorConfig extends ConnectorConfig<GithubRepoConfig> {
  @ConfigString({ required: true, checks: [githubName], description: 'The user or organization.' })
  owner!: string;

  @ConfigString({ aliases: ['repository'], required: true, checks: [githubName] })
  repo!: string;

  @ConfigString({
    aliases: ['access_token'],
    secret: true,
    description: 'A personal access token (read access).',
  })
  token?: string;

  @ConfigString({
    default: GITHUB_API,
    checks: [httpUrl],
    description: 'GitHub Enterprise Server: https://<host>/api/v3.',
  })
  base_url?: string;

  @ConfigString({
    description: 'The branch, tag or commit read when a request names none; default the default branch.',
  })
  ref?: string;

  toConfig(): GithubRepoConfig {
    return storedFields<GithubRepoConfig>(this);
  }
}

export const githubRepoConnector = defineConnector({
  name: 'github_repo',
  family: 'repository',
  config: GithubRepoConnectorConfig,
  selection: { path: 'required', ref: 'optional' },
  destinationFields: ['base_url'],
  driver: githubRepoDriver,
});
