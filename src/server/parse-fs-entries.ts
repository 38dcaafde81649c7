import { posix } from 'node:path';

/**
 * envd's EntryInfo (spec/envd/filesystem/filesystem.proto) in proto3 JSON, built from what GNU find
 * prints inside the sandbox with `FIND_ENTRY_FORMAT`: type, size, octal and symbolic permissions, owner,
 * group, mtime, link target and path, each ending in a NUL so no file name can break the parse.
 */
export const FIND_ENTRY_FORMAT = '%y\\0%s\\0%m\\0%M\\0%u\\0%g\\0%T@\\0%l\\0%p\\0';
const FIELDS = 9;

export type FileTypeName =
  | 'FILE_TYPE_FILE'
  | 'FILE_TYPE_DIRECTORY'
  | 'FILE_TYPE_SYMLINK'
  | 'FILE_TYPE_UNSPECIFIED';

export interface EntryInfoJson {
  name: string;
  type: FileTypeName;
  path: string;
  /** int64, a string in proto3 JSON. */
  size: string;
  mode: number;
  permissions: string;
  owner: string;
  group: string;
  modifiedTime?: string;
  symlinkTarget?: string;
}

const TYPES: Record<string, FileTypeName> = {
  f: 'FILE_TYPE_FILE',
  d: 'FILE_TYPE_DIRECTORY',
  l: 'FILE_TYPE_SYMLINK',
};

/** Parses find's output; a trailing partial record (cut output) is an error, not a silent drop. */
export function parseFindEntries(output: string): EntryInfoJson[] {
  const fields = output.split('\0');
  if (fields.pop() !== '' || fields.length % FIELDS !== 0) {
    throw new Error(`unexpected output of find: ${JSON.stringify(output.slice(0, 200))}`);
  }
  const entries: EntryInfoJson[] = [];
  for (let i = 0; i < fields.length; i += FIELDS) {
    const [type, size, octal, permissions, owner, group, mtime, target, rawPath] = fields.slice(
      i,
      i + FIELDS,
    );
    const path = posix.normalize(rawPath!);
    const seconds = Number(mtime);
    entries.push({
      name: posix.basename(path),
      type: TYPES[type!] ?? 'FILE_TYPE_UNSPECIFIED',
      path,
      size: String(Number(size) || 0),
      mode: Number.parseInt(octal!, 8) & 0o777,
      permissions: permissions!,
      owner: owner!,
      group: group!,
      ...(Number.isFinite(seconds) && { modifiedTime: new Date(seconds * 1000).toISOString() }),
      ...(type === 'l' && { symlinkTarget: target! }),
    });
  }
  return entries;
}
