import { promises as fsp } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, parse, resolve } from 'node:path';
import { httpError } from './http.ts';
import type { ProjectUpdate } from '../core/types.ts';

const ID = /^[1-9][0-9]*$/;

/** A `:id` path segment as a positive safe integer, else 400 `Invalid project ID`. */
export function parseId(raw: string): number {
  const id = ID.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw httpError(400, 'INVALID_ID', 'Invalid project ID');
  return id;
}

const MAX_PATH = 4096;
const MAX_TEXT = 65_536;

/** A required non-empty string field, e.g. `name` (the message names the field). */
function text(
  body: Record<string, unknown>,
  field: string,
  { nullable = false } = {},
): string | null | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (value === null && nullable) return null;
  if (typeof value !== 'string' || (!nullable && value.trim() === '')) {
    throw httpError(400, 'INVALID_FIELD',
      `${field} must be a ${nullable ? 'string or null' : 'non-empty string'}`);
  }
  if (value.length > MAX_TEXT) {
    throw httpError(400, 'INVALID_FIELD', `${field} must be at most ${MAX_TEXT} characters`);
  }
  if (!value.isWellFormed()) throw httpError(400, 'INVALID_FIELD', `${field} must be well-formed Unicode`);
  return value;
}

/** Validated `{ name, path }` of a POST; other fields of the body are ignored (see contract). */
export function projectInput(body: Record<string, unknown>): { name: string; path: string } {
  const { name, path } = body;
  if (
    name === undefined || name === null || name === ''
    || path === undefined || path === null || path === ''
  ) {
    throw httpError(400, 'MISSING_FIELDS', 'Name and path are required');
  }
  if (typeof path !== 'string') throw httpError(400, 'INVALID_FIELD', 'path must be a non-empty string');
  return { name: text(body, 'name') as string, path };
}

/** The fields of a PUT that are present, each type-checked; 400 when none is. */
export function projectUpdate(body: Record<string, unknown>): ProjectUpdate {
  const update: { -readonly [K in keyof ProjectUpdate]: ProjectUpdate[K] } = {};
  const name = text(body, 'name');
  if (name !== undefined) update.name = name as string;
  const description = text(body, 'description', { nullable: true });
  if (description !== undefined) update.description = description;
  const framework = text(body, 'framework', { nullable: true });
  if (framework !== undefined) update.framework = framework;
  if (body.tags !== undefined) update.tags = tags(body.tags);
  if (Object.keys(update).length === 0) throw httpError(400, 'NO_FIELDS', 'No valid fields to update');
  return update;
}

function tags(value: unknown): string[] {
  if (
    !Array.isArray(value)
    || !value.every((t) => typeof t === 'string' && t.trim() !== '' && t.length <= 256 && t.isWellFormed())
  ) {
    throw httpError(400, 'INVALID_FIELD', 'tags must be an array of non-empty strings');
  }
  // Duplicates dropped, first occurrence's position kept.
  return [...new Set(value as string[])];
}

/**
 * Turns a client-supplied path into the real, absolute path of an existing directory that is not a
 * filesystem root, checking the string before any `fs` call sees it.
 */
export async function resolveProjectPath(raw: string, { home = homedir() } = {}): Promise<string> {
  if (raw.length > MAX_PATH) {
    throw httpError(400, 'INVALID_PATH', `path must be at most ${MAX_PATH} characters`);
  }
  if (raw.includes('\0')) throw httpError(400, 'INVALID_PATH', 'path must not contain NUL bytes');
  if (!raw.isWellFormed()) throw httpError(400, 'INVALID_PATH', 'path must be well-formed Unicode');
  const expanded = raw === '~' ? home : raw.startsWith('~/') ? home + raw.slice(1) : raw;
  if (!isAbsolute(expanded)) throw httpError(400, 'PATH_NOT_ABSOLUTE', 'Path must be absolute');
  const normal = resolve(expanded);
  refuseRoot(normal);
  let info;
  try {
    info = await fsp.stat(normal);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw httpError(400, 'PATH_NOT_FOUND', 'Path does not exist');
    if (code === 'ENOTDIR') throw httpError(400, 'PATH_NOT_DIRECTORY', 'Path must be a directory');
    throw httpError(400, 'PATH_NOT_ACCESSIBLE', 'Path is not accessible', { cause: error });
  }
  if (!info.isDirectory()) throw httpError(400, 'PATH_NOT_DIRECTORY', 'Path must be a directory');
  let real: string;
  try {
    real = await fsp.realpath(normal);
  } catch (error) {
    throw httpError(400, 'PATH_NOT_ACCESSIBLE', 'Path is not accessible', { cause: error });
  }
  refuseRoot(real);
  return real;
}

function refuseRoot(path: string): void {
  if (parse(path).root === path) {
    throw httpError(400, 'PATH_IS_ROOT', 'Refusing to register a filesystem root');
  }
}
