/**
 * Listen or connect: whether a port a setting names is one a process of this project binds (`listen`)
 * or one it connects to as a client (`connect`). Decided from the setting's name alone, since a value
 * (`5432`, `redis://localhost:6379`) cannot say whose port it is.
 *
 * The rule (README "Listen or connect"):
 * - `PORT` and `*_PORT` are the project's own, unless a word of the name names a client of some service
 *   (`DB_PORT`, `REDIS_PORT`, `SMTP_PORT`, `FORWARD_DB_PORT`, ...; see CONNECT_WORDS);
 * - URL-like values (`*_URL`, `*_URI`, `*_DSN`, `*_HOST`, `*_ADDR`, any `scheme://host:port`) point
 *   elsewhere, except the app's own base URL (`APP_URL`, `BASE_URL`, `SITE_URL`, `NEXTAUTH_URL`, `ORIGIN`)
 *   and listen addresses (`LISTEN_ADDR`, `BIND_ADDRESS`);
 * - a browser-exposed variable (`NEXT_PUBLIC_`, `VITE_`, `REACT_APP_`, ...) is a client setting unless its
 *   remaining name is one of the own-port names (`VITE_PORT`, `NEXT_PUBLIC_APP_URL`);
 * - a `*_PORT` whose sibling `*_HOST`/`*_HOSTNAME`/`*_SERVER` in the same file or compose service names
 *   another machine (`TRAC_HOST=db`, `FOO_HOST=api.example.com`) is a client setting too (envKinds);
 * - finally defaults.ts turns a connect or container port into a listen port when a compose service of the
 *   repository publishes that host port: the project itself then binds it.
 */

/**
 * `container`: a port a process binds inside a container that no file publishes on the host (`EXPOSE 80`,
 * compose `ports: ["80"]`, `PORT=8080` in a compose service's environment): the machine does not listen
 * there, so it never counts in a collision (compose.ts, dockerfile.ts). A container row whose port a compose
 * file of the repository publishes on the host is a listen row (defaults.ts).
 */
export type PortKind = 'listen' | 'connect' | 'container';

/** Words naming a backing service or a client of one: a `*_PORT` holding one of them is connected to. */
const CONNECT_WORDS = new Set([
  'DB', 'DATABASE', 'DATASOURCE', 'POSTGRES', 'POSTGRESQL', 'PG', 'PGSQL', 'MYSQL', 'MARIADB', 'MSSQL', 'SQLSERVER',
  'ORACLE', 'MONGO', 'MONGODB', 'REDIS', 'VALKEY', 'MEMCACHED', 'MEMCACHE', 'CACHE', 'SMTP', 'MAIL', 'EMAIL', 'IMAP',
  'POP3', 'AMQP', 'RABBIT', 'RABBITMQ', 'KAFKA', 'ZOOKEEPER', 'ELASTIC', 'ELASTICSEARCH', 'OPENSEARCH', 'ES', 'SOLR',
  'MEILI', 'MEILISEARCH', 'TYPESENSE', 'MINIO', 'S3', 'LDAP', 'CLICKHOUSE', 'NEO4J', 'CASSANDRA', 'COUCHDB', 'INFLUX',
  'INFLUXDB', 'NATS', 'MQTT', 'SENTRY', 'STATSD', 'JAEGER', 'OTEL', 'OTLP', 'ZIPKIN', 'CONSUL', 'VAULT', 'ETCD',
  'TEMPORAL', 'SQS', 'PUSHER', 'SFTP', 'FTP', 'SSH', 'QDRANT', 'WEAVIATE', 'CHROMA', 'MILVUS', 'KEYCLOAK', 'MAILHOG',
  'MAILPIT', 'MAILCATCHER', 'SMTP4DEV', 'BROKER', 'QUEUE', 'SEARCH', 'UPSTREAM', 'REMOTE', 'EXTERNAL', 'TARGET',
  'SQL', 'MYSQLX', 'COUCHBASE', 'DYNAMODB', 'FIRESTORE', 'PUBSUB', 'SMB', 'NFS',
  // ORMs' connection settings (TYPEORM_PORT) and more stores and brokers.
  'TYPEORM', 'SEQUELIZE', 'KNEX', 'ORM', 'PSQL', 'RMQ', 'MQ', 'SMTPS', 'IMAPS', 'ARANGO', 'ARANGODB', 'RETHINKDB',
  'SURREAL', 'SURREALDB', 'COCKROACH', 'COCKROACHDB', 'TIDB', 'SCYLLA', 'DGRAPH', 'HAZELCAST', 'OLLAMA', 'SOLACE',
]);

/** Names (after a browser prefix is removed) of the app's own base URL or listen address. */
const OWN_ADDRESSES = new Set([
  // Not SERVER_URL or WEB_URL: in a frontend or a backend they usually name the other side.
  'APP_URL', 'BASE_URL', 'APP_BASE_URL', 'SITE_URL', 'PUBLIC_URL', 'NEXTAUTH_URL', 'AUTH_URL', 'ORIGIN', 'APP_ORIGIN',
  'APP_HOST', 'SERVER_HOST', 'SERVER_ADDR', 'SERVER_ADDRESS', 'HTTP_ADDR', 'ADDR', 'LISTEN', 'BIND',
  // ASP.NET Core's listen URLs (`http://+:8080`).
  'ASPNETCORE_URLS', 'URLS', 'ASPNETCORE_HTTP_PORTS', 'ASPNETCORE_HTTPS_PORTS',
]);

/** Own-port names a browser-prefixed variable may still carry (`VITE_PORT`, `VITE_DEV_PORT`). */
const CLIENT_OWN_PORTS = new Set(['PORT', 'DEV_PORT', 'APP_PORT', 'SERVER_PORT', 'DEV_SERVER_PORT']);

const CLIENT_PREFIX = /^(?:NEXT_PUBLIC_|NUXT_PUBLIC_|NUXT_|VITE_|REACT_APP_|EXPO_PUBLIC_|GATSBY_|PUBLIC_|VUE_APP_|STORYBOOK_)/;

/**
 * The kind of the port an environment-style setting (`name=value`) names.
 *
 * @example
 * envKind('PORT'); // 'listen'
 * envKind('REDIS_PORT'); // 'connect'
 * envKind('DATABASE_URL'); // 'connect'
 * envKind('NEXTAUTH_URL'); // 'listen'
 */
export function envKind(name: string): PortKind {
  const upper = name.toUpperCase();
  const bare = upper.replace(CLIENT_PREFIX, '');
  const client = bare !== upper;
  const words = bare.split('_').filter((w) => w !== '');
  if (words.some((w) => CONNECT_WORDS.has(w))) return 'connect';
  if (words.includes('LISTEN') || words.includes('BIND') || OWN_ADDRESSES.has(bare)) return 'listen';
  if (words[words.length - 1] === 'PORT') return !client || CLIENT_OWN_PORTS.has(bare) ? 'listen' : 'connect';
  return 'connect';
}

const LOCAL_HOSTS = new Set(['', 'localhost', '127.0.0.1', '0.0.0.0', '::', '::1', '[::]', '[::1]']);

/**
 * Whether a setting's name (`DB_HOST`, `redis-addr`, `ServerPort`: split at `_`, `-`, `.` and case changes)
 * names a client of some service (CONNECT_WORDS): a default in source under such a name is connected to.
 *
 * @example
 * namesClient('RedisAddr'); // true
 * namesClient('http-addr'); // false
 */
export function namesClient(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').toUpperCase().split(/[_\-.\s]+/);
  return words.some((w) => CONNECT_WORDS.has(w));
}

/** Whether an address's host (`0.0.0.0:3000`, `:8080`, `localhost:80`) is this machine: a listen address. */
export function isLocalAddress(address: string): boolean {
  const text = address.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const colon = text.lastIndexOf(':');
  return LOCAL_HOSTS.has((colon === -1 ? text : text.slice(0, colon)).toLowerCase());
}

/**
 * Kinds of the settings of one file or compose service, in order: envKind, plus the sibling rule: a
 * `P_PORT` is connect when `P_HOST`, `P_HOSTNAME` or `P_SERVER` names a non-local host.
 *
 * @example
 * envKinds([['TRAC_HOST', 'db'], ['TRAC_PORT', '5432'], ['APP_HOST', '0.0.0.0'], ['APP_PORT', '80']]);
 * // ['connect', 'connect', 'listen', 'listen']
 */
export function envKinds(pairs: ReadonlyArray<readonly [string, string]>): PortKind[] {
  const remote = new Set<string>();
  for (const [name, value] of pairs) {
    const m = /^(.*)_(?:HOST|HOSTNAME|SERVER)$/i.exec(name);
    const host = value.trim().replace(/^["']|["']$/g, '').toLowerCase();
    if (m && !LOCAL_HOSTS.has(host) && !host.includes('$') && !host.includes('/')) remote.add(m[1]!.toUpperCase());
  }
  return pairs.map(([name]) => {
    const m = /^(.*)_PORT$/i.exec(name);
    return m && remote.has(m[1]!.toUpperCase()) ? 'connect' : envKind(name);
  });
}

