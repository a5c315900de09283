import { compact, httpUrlField } from '../connector-config';
import { ConfigNormalizer, defineConnector } from '../connector-descriptor';
import {
  BrowseItem,
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

export interface BitbucketRepoConfig {
  readonly workspace: string;
  readonly repo: string;
  readonly token?: string;
  /** The Bitbucket Cloud REST API 2.0 root. */
  readonly base_url: string;
  readonly ref?: string;
}

export const BITBUCKET_API = 'https://api.bitbucket.org/2.0';
/** Browse lists at most this many files of the tree. */
export const MAX_TREE_ENTRIES = 5000;
const TREE_MAX_DEPTH = 20;

function headers(config: BitbucketRepoConfig): Record<string, string> {
  return config.token ? { Authorization: `Bearer ${config.token}` } : {};
}

function repoPath(config: BitbucketRepoConfig): string {
  return `repositories/${encodeURIComponent(config.workspace)}/${encodeURIComponent(config.repo)}`;
}

interface RepoMetadata {
  readonly fullName: string;
  readonly mainBranch: string;
  readonly private: boolean;
}

async function metadata(config: BitbucketRepoConfig, ctx: DriverContext): Promise<RepoMetadata> {
  const what = `the repository ${config.workspace}/${config.repo}`;
  const body = await getJson(apiUrl(config.base_url, repoPath(config)), headers(config), what, ctx);
  if (!isPlainObject(body) || typeof body.full_name !== 'string') {
    throw new ConnectorError('invalid_payload', `The answer for ${what} is not a Bitbucket repository.`);
  }
  const main = isPlainObject(body.mainbranch) ? body.mainbranch.name : undefined;
  if (typeof main !== 'string') {
    throw new ConnectorError('not_found', `The repository ${body.full_name} has no main branch yet.`);
  }
  return { fullName: body.full_name, mainBranch: main, private: body.is_private === true };
}

async function refOrDefault(
  config: BitbucketRepoConfig,
  ref: string | undefined,
  ctx: DriverContext,
): Promise<string> {
  return ref ?? config.ref ?? (await metadata(config, ctx)).mainBranch;
}

async function browse(config: BitbucketRepoConfig, ctx: DriverContext): Promise<BrowseResult> {
  const ref = await refOrDefault(config, undefined, ctx);
  const what = `the tree of ${config.workspace}/${config.repo} at ${ref}`;
  const origin = new URL(config.base_url).origin;
  const items: BrowseItem[] = [];
  let next: string | undefined = apiUrl(
    config.base_url,
    `${repoPath(config)}/src/${encodeURIComponent(ref)}/?max_depth=${TREE_MAX_DEPTH}&pagelen=100`,
  );
  while (next !== undefined && items.length < MAX_TREE_ENTRIES) {
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
        items.push(fileEntry(entry.path, typeof entry.size === 'number' ? entry.size : undefined));
      }
    }
    next = typeof body.next === 'string' ? body.next : undefined;
  }
  const complete = next === undefined && items.length <= MAX_TREE_ENTRIES;
  const shown = items.slice(0, MAX_TREE_ENTRIES);
  const data = shown.filter((item) => item.type !== undefined).length;
  return {
    items: shown,
    total: shown.length,
    message: `${complete ? `${shown.length} file(s)` : `the first ${shown.length} files`} at ${ref}, ${data} of them data files.`,
    discovery: { ref, complete },
  };
}

async function* readFile(
  config: BitbucketRepoConfig,
  selection: RowSelection,
  ctx: DriverContext,
): AsyncGenerator<Record<string, unknown>[]> {
  const path = innerPath(selection.path);
  dataFileType(path);
  const ref = await refOrDefault(config, selection.ref, ctx);
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  const bytes = await getBytes(
    apiUrl(config.base_url, `${repoPath(config)}/src/${encodeURIComponent(ref)}/${encoded}`),
    headers(config),
    `${path} at ${ref}`,
    ctx,
  );
  yield* readDataFile({ name: path, bytes }, ctx);
}

export const bitbucketRepoDriver: ConnectorDriver<BitbucketRepoConfig> = {
  async test(config, ctx): Promise<DriverTestOutcome> {
    const repo = await metadata(config, ctx);
    return {
      message: `Read ${repo.private ? 'private' : 'public'} repository ${repo.fullName} (main branch ${repo.mainBranch}).`,
      details: { full_name: repo.fullName, main_branch: repo.mainBranch, private: repo.private },
    };
  },
  browse,
  readRows(config, selection, ctx) {
    return limitRows(readFile(config, selection, ctx), selection.limit);
  },
};

const NAME = /^[A-Za-z0-9_.-]+$/;

const bitbucketRepoConfig: ConfigNormalizer<BitbucketRepoConfig> = (r) => {
  const workspace = r.string('workspace', { required: true });
  const repo = r.string('repo', { aliases: ['repository', 'repo_slug'], required: true });
  for (const [key, value] of [
    ['workspace', workspace],
    ['repo', repo],
  ] as const) {
    if (value !== undefined && value.trim() !== '' && (!NAME.test(value) || /^\.\.?$/.test(value))) {
      r.problem(key, 'must be a Bitbucket slug (letters, digits, "-", "_", ".")');
    }
  }
  return compact<BitbucketRepoConfig>({
    workspace: workspace ?? '',
    repo: repo ?? '',
    token: r.string('token', { aliases: ['access_token'] }),
    base_url: httpUrlField(r, 'base_url') ?? BITBUCKET_API,
    ref: r.string('ref'),
  });
};

export const bitbucketRepoConnector = defineConnector({
  name: 'bitbucket_repo',
  family: 'repository',
  normalize: bitbucketRepoConfig,
  selection: { path: 'required', ref: 'optional' },
  destinationFields: ['base_url'],
  driver: bitbucketRepoDriver,
});
