// A JSON Schema validator for the subset docs/openapi use: type (one or a list), properties, required,
// additionalProperties (false or a schema), items, enum, minimum, maximum, pattern, format date-time,
// and local $ref. Anything else in a schema is an error here, so the subset cannot grow unchecked.

type Schema = Record<string, unknown>;

const KNOWN = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'minimum', 'maximum',
  'pattern', 'format', '$ref', 'description', 'default']);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Errors of `value` against `schema` (empty when valid); `root` resolves `#/...` refs. */
export function validate(schema: Schema, value: unknown, root: Schema, at = '$'): string[] {
  for (const key of Object.keys(schema)) if (!KNOWN.has(key)) return [`${at}: schema keyword "${key}" is not supported by the test validator`];
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref.slice(2).split('/').reduce<unknown>((node, part) => (node as Schema | undefined)?.[part], root);
    if (!target) return [`${at}: unresolved ${schema.$ref}`];
    return validate(target as Schema, value, root, at);
  }
  const errors: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type as string[] : [schema.type as string];
    const actual = typeOf(value);
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return [`${at}: expected ${types.join('|')}, got ${actual}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${at}: below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${at}: above ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errors.push(`${at}: does not match ${schema.pattern}`);
    if (schema.format === 'date-time' && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value)) errors.push(`${at}: not a date-time`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => errors.push(...validate(schema.items as Schema, item, root, `${at}[${i}]`)));
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) if (!(key in object)) errors.push(`${at}: missing "${key}"`);
    for (const [key, v] of Object.entries(object)) {
      if (properties[key]) errors.push(...validate(properties[key], v, root, `${at}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${at}: unexpected "${key}"`);
      else if (typeof schema.additionalProperties === 'object') errors.push(...validate(schema.additionalProperties as Schema, v, root, `${at}.${key}`));
    }
  }
  return errors;
}
