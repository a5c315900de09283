import { httpUrl } from '../connector-config';
import { defineConnector } from '../connector-descriptor';
import { ConfigString, ConnectorConfig, storedFields } from '../config-fields';
import { BrowseItem, DriverContext } from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { isPlainObject } from '../formats/records';
import { fileEntry } from './data-file';
import { apiUrl, getBytes, getJson, RepoDescription, repoHostDriver } from './repo-host';

export interface GitlabRepoConfig {
  /** `group/subgroup/name` or the numeric project id. */
  readonly project: string;
  readonly token?: string;
  /** `https://gitlab.com/api/v4`, or a self-managed instance's `https://host/api/v4`. */
  readonly base_url: string;
  readonly ref?: string;
}

export const GITLAB_API = 'https://gitlab.com/api/v4';
const TREE_PAGE_SIZE = 100;

function headers(config: GitlabRepoConfig): Record<string, string> {
  return config.token ? { 'PRIVATE-TOKEN': config.token } : {};
}

function projectPath(config: GitlabRepoConfig): string {
  return `projects/${encodeURIComponent(config.project)}`;
}

async function describe(config: GitlabRepoConfig, ctx: DriverContext): Promise<RepoDescription> {
  const what = `the project ${config.project}`;
  const body = await getJson(apiUrl(config.base_url, projectPath(config)), headers(config), what, ctx);
  if (!isPlainObject(body) || typeof body.path_with_namespace !== 'string') {
    throw new ConnectorError('invalid_payload', `The answer for ${what} is not a GitLab project.`);
  }
  if (typeof body.default_branch !== 'string') {
    throw new ConnectorError('not_found', `The project ${body.path_with_namespace} has no branch yet.`);
  }
  const visibility = typeof body.visibility === 'string' ? body.visibility : 'unknown';
  return {
    defaultBranch: body.default_branch,
    message: `Read ${visibility} project ${body.path_with_namespace} (default branch ${body.default_branch}).`,
    details: { path: body.path_with_namespace, default_branch: body.default_branch, visibility },
  };
}

export const gitlabRepoDriver = repoHostDriver<GitlabRepoConfig>({
  describe,
  async listFiles(config, ref, max, ctx) {
    const what = `the tree of ${config.project} at ${ref}`;
    const files: BrowseItem[] = [];
    for (let page = 1; files.length < max; page += 1) {
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
          files.push(fileEntry(entry.path));
        }
      }
      if (body.length < TREE_PAGE_SIZE) return { files, complete: true };
    }
    return { files, complete: false };
  },
  readFile(config, path, ref, ctx) {
    return getBytes(
      apiUrl(
        config.base_url,
        `${projectPath(config)}/repository/files/${encodeURIComponent(path)}/raw?ref=${encodeURIComponent(ref)}`,
      ),
      headers(config),
      `${path} at ${ref}`,
      ctx,
    );
  },
});

const PROJECT = /^(\d+|[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+)$/;

export class GitlabRepoConnectorConfig extends ConnectorConfig<GitlabRepoConfig> {
  @ConfigString({
    aliases: ['project_id'],
    required: true,
    checks: [
      (value) =>
        typeof value === 'string' &&
        value.trim() !== '' &&
        (!PROJECT.test(value) || /(^|\/)\.\.?(\/|$)/.test(value))
          ? 'must be a project path (group/name) or a numeric project id'
          : undefined,
    ],
    description: 'group/name (subgroups allowed) or the numeric project id.',
  })
  project!: string;

  @ConfigString({ aliases: ['access_token', 'private_token'], secret: true })
  token?: string;

  @ConfigString({
    default: GITLAB_API,
    checks: [httpUrl],
    description: 'A self-managed GitLab: https://<host>/api/v4.',
  })
  base_url?: string;

  @ConfigString({
    description: 'The branch, tag or commit read when a request names none; default the default branch.',
  })
  ref?: string;

  toConfig(): GitlabRepoConfig {
    return storedFields<GitlabRepoConfig>(this);
  }
}

export const gitlabRepoConnector = defineConnector({
  name: 'gitlab_repo',
  family: 'repository',
  config: GitlabRepoConnectorConfig,
  selection: { path: 'required', ref: 'optional' },
  destinationFields: ['base_url'],
  driver: gitlabRepoDriver,
});
