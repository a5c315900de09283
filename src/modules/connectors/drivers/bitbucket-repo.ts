import { httpUrl, isHttpUrl } from '../connector-config';
import { defineConnector } from '../connector-descriptor';
import { ConfigString, ConnectorConfig, FieldCheck, storedFields } from '../config-fields';
import { BrowseItem, DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { isPlainObject } from '../formats/records';
import { fileEntry } from './data-file';
import {
  apiUrl,
  getBytes,
  getJson,
  isRepoName,
  RepoDescription,
  RepoHostApi,
  repoHostDriver,
} from './repo-host';

export interface BitbucketRepoConfig {
  /** Bitbucket Cloud: the workspace; Data Center / Server: the project key (`~user` for a personal repository). */
  readonly workspace: string;
  readonly repo: string;
  readonly token?: string;
  readonly base_url: string;
  readonly ref?: string;
}

export const BITBUCKET_API = 'https://api.bitbucket.org/2.0';
const TREE_MAX_DEPTH = 20;
const MAX_FOLDERS = 2000;
const PAGE_LIMIT = 1000;

/** Cloud's API (api.bitbucket.org, or a root ending in `/2.0`); anything else is Data Center under /rest/api/1.0. */
export function isBitbucketCloud(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  return url.hostname === 'api.bitbucket.org' || /\/2\.0\/?$/.test(url.pathname);
}

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

const cloudApi: RepoHostApi<BitbucketRepoConfig> = {
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
};

const dataCenterApi: RepoHostApi<BitbucketRepoConfig> = {
  describe: describeDataCenter,
  async listFiles(config, ref, max, ctx) {
    const what = `the tree of ${config.workspace}/${config.repo} at ${ref}`;
    const files: BrowseItem[] = [];
    const folders: { path: string; depth: number }[] = [{ path: '', depth: 0 }];
    let walked = 0;
    while (folders.length > 0 && files.length <= max) {
      if (walked >= MAX_FOLDERS) return { files, complete: false };
      walked += 1;
      const folder = folders.shift()!;
      let start: number | undefined = 0;
      while (start !== undefined && files.length <= max) {
        const path = folder.path === '' ? '' : `/${encodedPath(folder.path)}`;
        const body = await getJson(
          dataCenterUrl(
            config,
            `browse${path}?at=${encodeURIComponent(ref)}&limit=${PAGE_LIMIT}&start=${start}`,
          ),
          headers(config),
          what,
          ctx,
        );
        const children = isPlainObject(body) && isPlainObject(body.children) ? body.children : undefined;
        if (children === undefined || !Array.isArray(children.values)) {
          throw new ConnectorError('invalid_payload', `The answer for ${what} is not a folder listing.`);
        }
        for (const child of children.values) {
          const components =
            isPlainObject(child) && isPlainObject(child.path) ? child.path.components : undefined;
          if (!isPlainObject(child) || !Array.isArray(components) || components.length === 0) continue;
          if (!components.every((part): part is string => typeof part === 'string')) continue;
          const name = components.join('/');
          const full = folder.path === '' ? name : `${folder.path}/${name}`;
          if (child.type === 'FILE') {
            files.push(fileEntry(full, typeof child.size === 'number' ? child.size : undefined));
          } else if (child.type === 'DIRECTORY' && folder.depth < TREE_MAX_DEPTH) {
            folders.push({ path: full, depth: folder.depth + 1 });
          }
        }
        start = nextPageStart(children, start, what);
      }
    }
    return { files, complete: folders.length === 0 && files.length <= max };
  },
  readFile(config, path, ref, ctx) {
    return getBytes(
      dataCenterUrl(config, `raw/${encodedPath(path)}?at=${encodeURIComponent(ref)}`),
      headers(config),
      `${path} at ${ref}`,
      ctx,
    );
  },
};

function nextPageStart(page: Record<string, unknown>, start: number, what: string): number | undefined {
  if (page.isLastPage !== false) return undefined;
  const next = page.nextPageStart;
  if (typeof next !== 'number' || !Number.isSafeInteger(next) || next <= start) {
    throw new ConnectorError('invalid_payload', `The listing of ${what} pages without moving forward.`);
  }
  return next;
}

function encodedPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function dataCenterUrl(config: BitbucketRepoConfig, rest = ''): string {
  const repo = `rest/api/1.0/projects/${encodeURIComponent(config.workspace)}/repos/${encodeURIComponent(config.repo)}`;
  return apiUrl(config.base_url, rest === '' ? repo : `${repo}/${rest}`);
}

async function describeDataCenter(config: BitbucketRepoConfig, ctx: DriverContext): Promise<RepoDescription> {
  const what = `the repository ${config.workspace}/${config.repo}`;
  const body = await getJson(dataCenterUrl(config), headers(config), what, ctx);
  if (!isPlainObject(body) || typeof body.slug !== 'string' || !isPlainObject(body.project)) {
    throw new ConnectorError(
      'invalid_payload',
      `The answer for ${what} is not a Bitbucket Data Center repository.`,
    );
  }
  const fullName = `${String(body.project.key)}/${body.slug}`;
  const branch = await getJson(
    dataCenterUrl(config, 'default-branch'),
    headers(config),
    `the default branch of ${what}`,
    ctx,
  ).catch((error: unknown) => {
    // Servers before 7.5 only have the older endpoint.
    if (error instanceof ConnectorError && error.errorType === 'not_found') {
      return getJson(
        dataCenterUrl(config, 'branches/default'),
        headers(config),
        `the default branch of ${what}`,
        ctx,
      );
    }
    throw error;
  });
  const main = isPlainObject(branch) ? branch.displayId : undefined;
  if (typeof main !== 'string') {
    throw new ConnectorError('not_found', `The repository ${fullName} has no default branch yet.`);
  }
  const isPublic = body.public === true;
  return {
    defaultBranch: main,
    message: `Read ${isPublic ? 'public' : 'private'} Bitbucket Data Center repository ${fullName} (default branch ${main}).`,
    details: { full_name: fullName, main_branch: main, private: !isPublic, edition: 'data_center' },
  };
}

export const bitbucketRepoDriver = repoHostDriver<BitbucketRepoConfig>({
  describe: (config, ctx) => apiOf(config).describe(config, ctx),
  listFiles: (config, ref, max, ctx) => apiOf(config).listFiles(config, ref, max, ctx),
  readFile: (config, path, ref, ctx) => apiOf(config).readFile(config, path, ref, ctx),
});

function apiOf(config: BitbucketRepoConfig): RepoHostApi<BitbucketRepoConfig> {
  return isBitbucketCloud(config.base_url) ? cloudApi : dataCenterApi;
}

const bitbucketSlug: FieldCheck<unknown> = (value) =>
  typeof value === 'string' && value.trim() !== '' && !isRepoName(value)
    ? 'must be a Bitbucket slug (letters, digits, "-", "_", ".")'
    : undefined;

const workspaceOrProject: FieldCheck<BitbucketRepoConnectorConfig> = (value, config) => {
  const baseUrl = typeof config.base_url === 'string' ? config.base_url : BITBUCKET_API;
  const isCloud = isHttpUrl(baseUrl) ? isBitbucketCloud(baseUrl) : true;
  const key = !isCloud && typeof value === 'string' && value.startsWith('~') ? value.slice(1) : value;
  return bitbucketSlug(key, config);
};

export class BitbucketRepoConnectorConfig extends ConnectorConfig<BitbucketRepoConfig> {
  @ConfigString<BitbucketRepoConnectorConfig>({
    aliases: ['project', 'project_key'],
    required: true,
    checks: [workspaceOrProject],
    description:
      'Cloud: the workspace. Data Center / Server: the project key (`~user` for a personal repository).',
  })
  workspace!: string;

  @ConfigString({ aliases: ['repository', 'repo_slug'], required: true, checks: [bitbucketSlug] })
  repo!: string;

  @ConfigString({
    aliases: ['access_token'],
    secret: true,
    description: 'Cloud: a repository or workspace access token. Data Center / Server: an HTTP access token.',
  })
  token?: string;

  @ConfigString({
    default: BITBUCKET_API,
    checks: [httpUrl],
    description:
      'The Cloud API (host api.bitbucket.org or a path ending in /2.0), or a Data Center / Server root URL.',
  })
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
