import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

/*
 * Archives written byte by byte, so tests can make the ones no well-behaved tool would: entries named `../x` or
 * `/etc/x`, links leading out, headers that lie about sizes.
 */

export interface TarMember {
  readonly name: string;
  readonly data?: string | Buffer;
  readonly type?: 'file' | 'directory' | 'symlink' | 'hardlink';
  readonly linkpath?: string;
}

const TAR_TYPES = { file: '0', hardlink: '1', symlink: '2', directory: '5' } as const;

function field(header: Buffer, offset: number, length: number, value: string): void {
  header.write(value, offset, Math.min(length, Buffer.byteLength(value)), 'utf8');
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, '0')}\0`;
}

/** A ustar archive (names up to 100 bytes), ending with the two zero blocks. */
export function tarArchive(members: readonly TarMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const member of members) {
    const data = Buffer.from(member.data ?? '');
    const type = member.type ?? 'file';
    const header = Buffer.alloc(512);
    field(header, 0, 100, member.name);
    field(header, 100, 8, octal(type === 'directory' ? 0o755 : 0o644, 8));
    field(header, 108, 8, octal(0, 8));
    field(header, 116, 8, octal(0, 8));
    field(header, 124, 12, octal(type === 'file' ? data.length : 0, 12));
    field(header, 136, 12, octal(1_700_000_000, 12));
    header.fill(' ', 148, 156);
    field(header, 156, 1, TAR_TYPES[type]);
    field(header, 157, 100, member.linkpath ?? '');
    field(header, 257, 6, 'ustar\0');
    field(header, 263, 2, '00');
    let sum = 0;
    for (const byte of header) sum += byte;
    field(header, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
    blocks.push(header);
    if (type === 'file' && data.length > 0) {
      blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function tarGzArchive(members: readonly TarMember[]): Buffer {
  return gzipSync(tarArchive(members));
}

export interface ZipMember {
  readonly name: string;
  readonly data?: string | Buffer;
  /** Stored as a Unix symbolic link whose content is this target. */
  readonly symlink?: string;
  /** What the headers claim the entry inflates to (default: the truth). */
  readonly declaredSize?: number;
  readonly store?: boolean;
}

/** A zip archive (deflated unless `store`), with Unix modes so symlinks are recognisable. */
export function zipArchive(members: readonly ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const name = Buffer.from(member.name, 'utf8');
    const data = Buffer.from(member.symlink ?? member.data ?? '');
    const store = member.store === true || member.symlink !== undefined;
    const body = store ? data : deflateRawSync(data);
    const method = store ? 0 : 8;
    const crc = crc32(data);
    const size = member.declaredSize ?? data.length;
    const isDir = member.name.endsWith('/');
    const mode = member.symlink !== undefined ? 0o120777 : isDir ? 0o040755 : 0o100644;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
