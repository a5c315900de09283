import { compact, httpUrlField } from '../connector-config';
import { ConfigNormalizer, defineConnector } from '../connector-descriptor';
import {
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  DriverTestOutcome,
  limitRows,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { isPlainObject } from '../formats/records';
import { dataFileType, fileEntry, innerPath, readDataFile } from './data-file';
import { apiUrl, getBytes, getJson } from './repo-host';

export interface GithubRepoConfig {
  readonly owner: string;
  readonly repo: string;
  readonly token?: string;
  /** `https://api.github.com`, or a GitHub Enterprise Server's `https://host/api/v3`. */
  readonly base_url: string;
  readonly ref?: string;
}

export const GITHUB_API = 'https://api.github.com';
/** Browse lists at most this many files of the tree. */
export const MAX_TREE_ENTRIES = 5000;

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

interface RepoMetadata {
  readonly fullName: string;
  readonly defaultBranch: string;
  readonly private: boolean;
}

async function metadata(config: GithubRepoConfig, ctx: DriverContext): Promise<RepoMetadata> {
  const what = `the repository ${config.owner}/${config.repo}`;
  const body = await getJson(apiUrl(config.base_url, repoPath(config)), headers(config), what, ctx);
  if (!isPlainObject(body) || typeof body.default_branch !== 'string') {
    throw new ConnectorError('invalid_payload', `The answer for ${what} is not a GitHub repository.`);
  }
  return {
    fullName: typeof body.full_name === 'string' ? body.full_name : `${config.owner}/${config.repo}`,
    defaultBranch: body.default_branch,
    private: body.private === true,
  };
}

async function refOrDefault(
  config: GithubRepoConfig,
  ref: string | undefined,
  ctx: DriverContext,
): Promise<string> {
  return ref ?? config.ref ?? (await metadata(config, ctx)).defaultBranch;
}

async function browse(config: GithubRepoConfig, ctx: DriverContext): Promise<BrowseResult> {
  const ref = await refOrDefault(config, undefined, ctx);
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
  const files = body.tree.filter(
    (entry): entry is { path: string; size?: number } =>
      isPlainObject(entry) && entry.type === 'blob' && typeof entry.path === 'string',
  );
  const items = files
    .slice(0, MAX_TREE_ENTRIES)
    .map((entry) => fileEntry(entry.path, typeof entry.size === 'number' ? entry.size : undefined));
  const complete = body.truncated !== true && files.length <= MAX_TREE_ENTRIES;
  const data = items.filter((item) => item.type !== undefined).length;
  const shown = complete ? `${items.length} file(s)` : `the first ${items.length} files`;
  return {
    items,
    total: items.length,
    message: `${shown} at ${ref}, ${data} of them data files.`,
    discovery: { ref, complete },
  };
}

async function* readFile(
  config: GithubRepoConfig,
  selection: RowSelection,
  ctx: DriverContext,
): AsyncGenerator<Record<string, unknown>[]> {
  const path = innerPath(selection.path);
  dataFileType(path);
  const ref = await refOrDefault(config, selection.ref, ctx);
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  const bytes = await getBytes(
    apiUrl(config.base_url, `${repoPath(config)}/contents/${encoded}?ref=${encodeURIComponent(ref)}`),
    headers(config, 'application/vnd.github.raw+json'),
    `${path} at ${ref}`,
    ctx,
  );
  yield* readDataFile({ name: path, bytes }, ctx);
}

export const githubRepoDriver: ConnectorDriver<GithubRepoConfig> = {
  async test(config, ctx): Promise<DriverTestOutcome> {
    const repo = await metadata(config, ctx);
    return {
      message: `Read ${repo.private ? 'private' : 'public'} repository ${repo.fullName} (default branch ${repo.defaultBranch}).`,
      details: { full_name: repo.fullName, default_branch: repo.defaultBranch, private: repo.private },
    };
  },
  browse,
  readRows(config, selection, ctx) {
    return limitRows(readFile(config, selection, ctx), selection.limit);
  },
};

const NAME = /^[A-Za-z0-9_.-]+$/;

const githubRepoConfig: ConfigNormalizer<GithubRepoConfig> = (r) => {
  const owner = r.string('owner', { required: true });
  const repo = r.string('repo', { aliases: ['repository'], required: true });
  for (const [key, value] of [
    ['owner', owner],
    ['repo', repo],
  ] as const) {
    if (value !== undefined && value.trim() !== '' && !NAME.test(value)) {
      r.problem(key, 'must be a GitHub name (letters, digits, "-", "_", ".")');
    }
  }
  return compact<GithubRepoConfig>({
    owner: owner ?? '',
    repo: repo ?? '',
    token: r.string('token', { aliases: ['access_token'] }),
    base_url: httpUrlField(r, 'base_url') ?? GITHUB_API,
    ref: r.string('ref'),
  });
};

export const githubRepoConnector = defineConnector({
  name: 'github_repo',
  family: 'repository',
  normalize: githubRepoConfig,
  selection: { path: 'required', ref: 'optional' },
  destinationFields: ['base_url'],
  driver: githubRepoDriver,
});
