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

export interface GitlabRepoConfig {
  /** `group/subgroup/name` or the numeric project id. */
  readonly project: string;
  readonly token?: string;
  /** `https://gitlab.com/api/v4`, or a self-managed instance's `https://host/api/v4`. */
  readonly base_url: string;
  readonly ref?: string;
}

export const GITLAB_API = 'https://gitlab.com/api/v4';
/** Browse lists at most this many files of the tree. */
export const MAX_TREE_ENTRIES = 5000;
const TREE_PAGE_SIZE = 100;

function headers(config: GitlabRepoConfig): Record<string, string> {
  return config.token ? { 'PRIVATE-TOKEN': config.token } : {};
}

function projectPath(config: GitlabRepoConfig): string {
  return `projects/${encodeURIComponent(config.project)}`;
}

interface ProjectMetadata {
  readonly path: string;
  readonly defaultBranch: string;
  readonly visibility: string;
}

async function metadata(config: GitlabRepoConfig, ctx: DriverContext): Promise<ProjectMetadata> {
  const what = `the project ${config.project}`;
  const body = await getJson(apiUrl(config.base_url, projectPath(config)), headers(config), what, ctx);
  if (!isPlainObject(body) || typeof body.path_with_namespace !== 'string') {
    throw new ConnectorError('invalid_payload', `The answer for ${what} is not a GitLab project.`);
  }
  if (typeof body.default_branch !== 'string') {
    throw new ConnectorError('not_found', `The project ${body.path_with_namespace} has no branch yet.`);
  }
  return {
    path: body.path_with_namespace,
    defaultBranch: body.default_branch,
    visibility: typeof body.visibility === 'string' ? body.visibility : 'unknown',
  };
}

async function refOrDefault(
  config: GitlabRepoConfig,
  ref: string | undefined,
  ctx: DriverContext,
): Promise<string> {
  return ref ?? config.ref ?? (await metadata(config, ctx)).defaultBranch;
}

async function browse(config: GitlabRepoConfig, ctx: DriverContext): Promise<BrowseResult> {
  const ref = await refOrDefault(config, undefined, ctx);
  const items: BrowseItem[] = [];
  let complete = false;
  for (let page = 1; items.length < MAX_TREE_ENTRIES; page += 1) {
    const what = `the tree of ${config.project} at ${ref}`;
    const query = `recursive=true&ref=${encodeURIComponent(ref)}&per_page=${TREE_PAGE_SIZE}&page=${page}`;
    const body = await getJson(
      apiUrl(config.base_url, `${projectPath(config)}/repository/tree?${query}`),
      headers(config),
      what,
      ctx,
    );
    if (!Array.isArray(body))
      throw new ConnectorError('invalid_payload', `The answer for ${what} is not a tree.`);
    for (const entry of body) {
      if (isPlainObject(entry) && entry.type === 'blob' && typeof entry.path === 'string') {
        items.push(fileEntry(entry.path));
      }
    }
    if (body.length < TREE_PAGE_SIZE) {
      complete = true;
      break;
    }
  }
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
  config: GitlabRepoConfig,
  selection: RowSelection,
  ctx: DriverContext,
): AsyncGenerator<Record<string, unknown>[]> {
  const path = innerPath(selection.path);
  dataFileType(path);
  const ref = await refOrDefault(config, selection.ref, ctx);
  const bytes = await getBytes(
    apiUrl(
      config.base_url,
      `${projectPath(config)}/repository/files/${encodeURIComponent(path)}/raw?ref=${encodeURIComponent(ref)}`,
    ),
    headers(config),
    `${path} at ${ref}`,
    ctx,
  );
  yield* readDataFile({ name: path, bytes }, ctx);
}

export const gitlabRepoDriver: ConnectorDriver<GitlabRepoConfig> = {
  async test(config, ctx): Promise<DriverTestOutcome> {
    const project = await metadata(config, ctx);
    return {
      message: `Read ${project.visibility} project ${project.path} (default branch ${project.defaultBranch}).`,
      details: { path: project.path, default_branch: project.defaultBranch, visibility: project.visibility },
    };
  },
  browse,
  readRows(config, selection, ctx) {
    return limitRows(readFile(config, selection, ctx), selection.limit);
  },
};

const PROJECT = /^(\d+|[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+)$/;

const gitlabRepoConfig: ConfigNormalizer<GitlabRepoConfig> = (r) => {
  const project = r.string('project', { aliases: ['project_id'], required: true });
  if (
    project !== undefined &&
    project.trim() !== '' &&
    (!PROJECT.test(project) || /(^|\/)\.\.?(\/|$)/.test(project))
  ) {
    r.problem('project', 'must be a project path (group/name) or a numeric project id');
  }
  return compact<GitlabRepoConfig>({
    project: project ?? '',
    token: r.string('token', { aliases: ['access_token', 'private_token'] }),
    base_url: httpUrlField(r, 'base_url') ?? GITLAB_API,
    ref: r.string('ref'),
  });
};

export const gitlabRepoConnector = defineConnector({
  name: 'gitlab_repo',
  family: 'repository',
  normalize: gitlabRepoConfig,
  selection: { path: 'required', ref: 'optional' },
  destinationFields: ['base_url'],
  driver: gitlabRepoDriver,
});
