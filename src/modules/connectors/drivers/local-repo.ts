import { lstat, readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PromiseFsClient, TreeEntry } from 'isomorphic-git';
import { defineConnector } from '../connector-descriptor';
import { ConfigString, ConnectorConfig, storedFields } from '../config-fields';
import {
  BrowseItem,
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  DriverTestOutcome,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { loadOnFirstUse } from '../lazy-module';
import { confinedDirectory, isWithin } from '../local-path';
import { errorMessage } from '../network-errors';
import { assertParseableSize, DataFile, dataFileType, fileEntry, innerPath, readDataFile } from './data-file';

export interface LocalRepoConfig {
  /** The repository folder (a work tree with `.git`, or a bare repository), inside the import dir. */
  readonly path: string;
  readonly ref?: string;
}

export const MAX_TREE_ENTRIES = 5000;
const SYMLINK_MODE = '120000';

const loadGit = loadOnFirstUse(async () => (await import('isomorphic-git')).default);

/** An fs error isomorphic-git understands as "not there" (it probes optional files such as packed-refs). */
function missing(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
}

/** Read-only file system for isomorphic-git, confined to the git folder; a path leading out reads as missing. */
class ConfinedGitFs {
  escaped = false;
  readonly client: PromiseFsClient;

  constructor(private readonly root: string) {
    const readOnly = (): Promise<never> =>
      Promise.reject(Object.assign(new Error('read-only'), { code: 'EROFS' }));
    this.client = {
      promises: {
        readFile: async (path: string, options?: unknown) =>
          readFile(await this.inside(path), options as BufferEncoding),
        readdir: async (path: string) => readdir(await this.inside(path)),
        stat: async (path: string) => stat(await this.inside(path)),
        lstat: async (path: string) => lstat(this.lexical(path)),
        readlink: async (path: string) => readlink(this.lexical(path)),
        writeFile: readOnly,
        unlink: readOnly,
        mkdir: readOnly,
        rmdir: readOnly,
        symlink: readOnly,
        chmod: readOnly,
      },
    };
  }

  private lexical(path: string): string {
    const full = resolve(path);
    if (!isWithin(this.root, full)) {
      this.escaped = true;
      throw missing(path);
    }
    return full;
  }

  private async inside(path: string): Promise<string> {
    const full = this.lexical(path);
    const real = await realpath(full);
    if (!isWithin(this.root, real)) {
      this.escaped = true;
      throw missing(path);
    }
    return real;
  }
}

interface OpenRepo {
  readonly fs: ConfinedGitFs;
  readonly gitdir: string;
  readonly git: Awaited<ReturnType<typeof loadGit>>;
}

async function openRepo(config: LocalRepoConfig, ctx: DriverContext): Promise<OpenRepo> {
  const dir = await confinedDirectory(ctx.imports, config.path);
  const dotGit = join(dir, '.git');
  const dotGitInfo = await lstat(dotGit).catch(() => undefined);
  // A `.git` file (worktrees, submodules) points elsewhere; only a folder or a bare repository is read.
  const gitdir = dotGitInfo?.isDirectory() ? dotGit : dir;
  const realGitdir = await realpath(gitdir);
  if (!isWithin(dir, realGitdir)) {
    throw new ConnectorError('path_not_allowed', 'The repository folder leads out of the import directory.');
  }
  const head = await stat(join(realGitdir, 'HEAD')).catch(() => undefined);
  if (!head?.isFile()) {
    throw new ConnectorError('not_found', `${config.path} is not a git repository (no .git folder or HEAD).`);
  }
  return { fs: new ConfinedGitFs(realGitdir), gitdir: realGitdir, git: await loadGit() };
}

async function withRepo<T>(
  config: LocalRepoConfig,
  ctx: DriverContext,
  work: (repo: OpenRepo) => Promise<T>,
): Promise<T> {
  const repo = await openRepo(config, ctx);
  try {
    const result = await work(repo);
    if (repo.fs.escaped) throw escapedError();
    return result;
  } catch (error) {
    if (repo.fs.escaped) throw escapedError();
    if (error instanceof ConnectorError) throw error;
    const code = (error as { code?: unknown }).code;
    if (code === 'NotFoundError' || code === 'ObjectTypeError') {
      throw new ConnectorError('not_found', `Not found in the repository: ${errorMessage(error)}`);
    }
    throw new ConnectorError('invalid_payload', `The repository cannot be read: ${errorMessage(error)}`);
  }
}

function escapedError(): ConnectorError {
  return new ConnectorError(
    'path_not_allowed',
    'The repository has a symbolic link leading out of its git folder; nothing outside it is read.',
  );
}

async function commitOf(repo: OpenRepo, ref: string | undefined): Promise<string> {
  const { git, fs, gitdir } = repo;
  const wanted = ref ?? 'HEAD';
  let oid: string;
  try {
    oid = await git.resolveRef({ fs: fs.client, gitdir, ref: wanted });
  } catch (error) {
    if (!/^[0-9a-f]{4,40}$/i.test(wanted)) {
      throw new ConnectorError(
        'not_found',
        `The ref "${wanted}" is not a branch, tag or commit of the repository.`,
      );
    }
    oid = await git.expandOid({ fs: fs.client, gitdir, oid: wanted.toLowerCase() }).catch(() => {
      throw error;
    });
  }
  // An annotated tag points at a tag object; its target is the commit.
  for (let depth = 0; depth < 5; depth += 1) {
    const object = await git.readObject({ fs: fs.client, gitdir, oid });
    if (object.type === 'commit') return oid;
    if (object.type !== 'tag') break;
    oid = (await git.readTag({ fs: fs.client, gitdir, oid })).tag.object;
  }
  throw new ConnectorError('not_found', `The ref "${wanted}" does not name a commit.`);
}

/** The tree entry at `path` in the commit, walking one folder at a time so a symlink entry is seen as such. */
async function entryAt(repo: OpenRepo, commit: string, path: string): Promise<TreeEntry> {
  const { git, fs, gitdir } = repo;
  const segments = path.split('/');
  let tree = (await git.readTree({ fs: fs.client, gitdir, oid: commit })).tree;
  for (let i = 0; i < segments.length; i += 1) {
    const entry = tree.find((candidate) => candidate.path === segments[i]);
    if (entry === undefined)
      throw new ConnectorError('not_found', `${path} is not in the repository at this ref.`);
    if (entry.mode === SYMLINK_MODE) {
      throw new ConnectorError(
        'path_not_allowed',
        `${path} goes through a symbolic link; only files are read.`,
      );
    }
    if (i === segments.length - 1) return entry;
    if (entry.type !== 'tree') throw new ConnectorError('not_found', `${path} is not in the repository.`);
    tree = (await git.readTree({ fs: fs.client, gitdir, oid: entry.oid })).tree;
  }
  throw new ConnectorError('not_found', `${path} is not in the repository.`);
}

async function dataFileAt(
  repo: OpenRepo,
  commit: string,
  path: string,
  ctx: DriverContext,
): Promise<DataFile> {
  dataFileType(path);
  const entry = await entryAt(repo, commit, path);
  if (entry.type !== 'blob') throw new ConnectorError('invalid_config', `${path} is a folder, not a file.`);
  const { blob } = await repo.git.readBlob({ fs: repo.fs.client, gitdir: repo.gitdir, oid: entry.oid });
  assertParseableSize(path, blob.byteLength, ctx);
  return { name: path, bytes: blob };
}

async function listTree(repo: OpenRepo, commit: string): Promise<{ items: BrowseItem[]; complete: boolean }> {
  const items: BrowseItem[] = [];
  const folders: { oid: string; prefix: string }[] = [{ oid: commit, prefix: '' }];
  while (folders.length > 0) {
    const folder = folders.shift()!;
    const { tree } = await repo.git.readTree({ fs: repo.fs.client, gitdir: repo.gitdir, oid: folder.oid });
    for (const entry of tree) {
      const path = `${folder.prefix}${entry.path}`;
      if (entry.type === 'tree') folders.push({ oid: entry.oid, prefix: `${path}/` });
      else if (entry.type === 'blob' && entry.mode !== SYMLINK_MODE) {
        if (items.length >= MAX_TREE_ENTRIES) return { items, complete: false };
        items.push(fileEntry(path));
      }
    }
  }
  return { items, complete: true };
}

export const localRepoDriver: ConnectorDriver<LocalRepoConfig> = {
  test(config, ctx): Promise<DriverTestOutcome> {
    return withRepo(config, ctx, async (repo) => {
      const commit = await commitOf(repo, config.ref);
      const { commit: info } = await repo.git.readCommit({
        fs: repo.fs.client,
        gitdir: repo.gitdir,
        oid: commit,
      });
      const branches = await repo.git.listBranches({ fs: repo.fs.client, gitdir: repo.gitdir });
      const subject = info.message.split('\n')[0];
      return {
        message: `Read ${config.ref ?? 'HEAD'} at commit ${commit.slice(0, 12)} ("${subject}"); ${branches.length} branch(es).`,
        details: { commit, ref: config.ref ?? 'HEAD', branches },
      };
    });
  },

  browse(config, ctx): Promise<BrowseResult> {
    return withRepo(config, ctx, async (repo) => {
      const commit = await commitOf(repo, config.ref);
      const { items, complete } = await listTree(repo, commit);
      const data = items.filter((item) => item.type !== undefined).length;
      const shown = complete ? `${items.length} file(s)` : `the first ${items.length} files`;
      return {
        items,
        total: items.length,
        message: `${shown} at ${config.ref ?? 'HEAD'} (${commit.slice(0, 12)}), ${data} of them data files.`,
        discovery: { commit, ref: config.ref ?? 'HEAD', complete },
      };
    });
  },

  readRows(config, selection: RowSelection, ctx) {
    async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
      const path = innerPath(selection.path);
      const file = await withRepo(config, ctx, async (repo) =>
        dataFileAt(repo, await commitOf(repo, selection.ref ?? config.ref), path, ctx),
      );
      yield* readDataFile(file, ctx);
    }
    return limitBatches(rows(), selection.limit);
  },
};

export class LocalRepoConnectorConfig extends ConnectorConfig<LocalRepoConfig> {
  @ConfigString({
    required: true,
    description:
      'The repository folder (a work tree with .git, or a bare repository) inside the import directory.',
  })
  path!: string;

  @ConfigString({ description: 'The branch, tag or commit read when a request names none; default HEAD.' })
  ref?: string;

  toConfig(): LocalRepoConfig {
    return storedFields<LocalRepoConfig>(this);
  }
}

export const localRepoConnector = defineConnector({
  name: 'local_repo',
  family: 'repository',
  config: LocalRepoConnectorConfig,
  selection: { path: 'required', ref: 'optional' },
  destinationFields: [],
  driver: localRepoDriver,
});
