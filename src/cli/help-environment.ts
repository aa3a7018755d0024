/**
 * The environment variables each command reads, for its `--help` (so `serve --help` lists every
 * variable operators.md names). config/env.ts is the one reader of process.env; this is what
 * help says of it, and test/integration/cli/help.test.ts holds the two together: every variable
 * env.ts reads is listed by `localsign --help`, and every one operators.md names for the service by
 * `serve --help`.
 */

const VARIABLES: Record<string, string> = {
  LOCALSIGN_HOME: 'Config dir (default ~/.localsign; --home)',
  NO_COLOR: 'Set to anything: no colours on any stream',
  LOCALSIGN_HOST: 'Listen address, or the service asked (default 127.0.0.1; --host)',
  LOCALSIGN_PORT: 'Listen port, or the service asked (default 8300; --port)',
  LOCALSIGN_TSA_URL: 'RFC 3161 timestamp authority (--tsa-url)',
  LOCALSIGN_PADES_LEVEL: 'PAdES level of requests that ask for none (--pades-level)',
  LOCALSIGN_TRUST: 'PEM file of trust anchors for validation (--trust)',
  LOCALSIGN_RECEIVE_LISTEN: 'HOST:PORT of the listener for platform pushes (--receive-listen)',
  LOCALSIGN_MAX_BODY: 'Largest request body in bytes (--max-body)',
  LOCALSIGN_MAX_BODY_MEMORY: 'Request bodies held in memory at once, bytes (--max-body-memory)',
  LOCALSIGN_MAX_CONNECTIONS: 'Connections held at once (--max-connections)',
  LOCALSIGN_DISK_QUOTA: "MiB of results and a day's audit records per application (--disk-quota)",
  LOCALSIGN_REQUEST_TIMEOUT: 'Seconds before a PENDING request ends in ERROR (--request-timeout)',
  LOCALSIGN_ALLOW_HOST: 'Extra Host names served, comma-separated (--allow-host)',
  LOCALSIGN_ALLOW_ORIGIN: 'Web origins allowed to call the API, comma-separated (--allow-origin)',
  LOCALSIGN_WORKERS: 'Signing worker threads (--workers)',
  LOCALSIGN_DOCUMENT_TIME_LIMIT: 'Seconds one step on one PDF may take (--document-time-limit)',
  LOCALSIGN_DOCUMENT_MEMORY_LIMIT: 'Heap of each PDF worker in MiB (--document-memory-limit)',
  LOCALSIGN_RETENTION_DAYS: 'Days results are kept (--retention-days)',
  LOCALSIGN_RETENTION_MAX: 'Most results kept (--retention-max)',
  LOCALSIGN_ALLOW_REMOTE: '1: allow listening beyond loopback (--allow-remote)',
  LOCALSIGN_RATE_LIMIT: 'Requests per second per application key (--rate-limit)',
  LOCALSIGN_RATE_BURST: 'Requests an application key may make at once (--rate-burst)',
  LOCALSIGN_HEADER_TIMEOUT: "Seconds for a request's headers (--header-timeout)",
  LOCALSIGN_BODY_TIMEOUT: 'Seconds a request body may pause (--body-timeout)',
  LOCALSIGN_SERVICE_FILE: 'Settings file of the installed service ("" for none)',
  HTTPS_PROXY: 'Proxy for HTTPS to the platform, TSA, OCSP and CRLs (https_proxy too)',
  HTTP_PROXY: 'Proxy for plain HTTP (http_proxy too)',
  NO_PROXY: 'Hosts reached without the proxy, comma-separated (no_proxy too)',
  LOCALSIGN_URL: 'Service URL (--url)',
  LOCALSIGN_KEY: 'Application key wrp_… (--key)',
  LOCALSIGN_SECRET: 'Its wsec_… secret (--secret-file)',
};

const SERVICE = [
  'LOCALSIGN_HOME', 'LOCALSIGN_HOST', 'LOCALSIGN_PORT', 'LOCALSIGN_TSA_URL', 'LOCALSIGN_PADES_LEVEL', 'LOCALSIGN_TRUST',
  'LOCALSIGN_RECEIVE_LISTEN', 'LOCALSIGN_MAX_BODY', 'LOCALSIGN_MAX_BODY_MEMORY', 'LOCALSIGN_MAX_CONNECTIONS', 'LOCALSIGN_DISK_QUOTA', 'LOCALSIGN_REQUEST_TIMEOUT', 'LOCALSIGN_ALLOW_HOST', 'LOCALSIGN_ALLOW_ORIGIN',
  'LOCALSIGN_WORKERS', 'LOCALSIGN_DOCUMENT_TIME_LIMIT', 'LOCALSIGN_DOCUMENT_MEMORY_LIMIT', 'LOCALSIGN_RETENTION_DAYS',
  'LOCALSIGN_RETENTION_MAX', 'LOCALSIGN_ALLOW_REMOTE', 'LOCALSIGN_RATE_LIMIT', 'LOCALSIGN_RATE_BURST', 'LOCALSIGN_HEADER_TIMEOUT',
  'LOCALSIGN_BODY_TIMEOUT', 'LOCALSIGN_SERVICE_FILE', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'NO_COLOR',
];
const CALLS_SERVICE = ['LOCALSIGN_URL', 'LOCALSIGN_KEY', 'LOCALSIGN_SECRET', 'LOCALSIGN_HOME', 'NO_COLOR'];
const LOCAL = ['LOCALSIGN_HOME', 'LOCALSIGN_SERVICE_FILE', 'NO_COLOR'];
const PLATFORM = [...LOCAL, 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'];

/** By command path without `localsign` ("" is the program itself: every variable). */
const BY_COMMAND: Record<string, string[]> = {
  '': Object.keys(VARIABLES),
  serve: SERVICE,
  sign: CALLS_SERVICE,
  results: CALLS_SERVICE,
  errors: CALLS_SERVICE,
  credentials: CALLS_SERVICE,
  designs: CALLS_SERVICE,
  status: ['LOCALSIGN_HOME', 'LOCALSIGN_HOST', 'LOCALSIGN_PORT', 'LOCALSIGN_KEY', 'LOCALSIGN_SECRET', 'LOCALSIGN_SERVICE_FILE', 'NO_COLOR'],
  verify: ['LOCALSIGN_TRUST', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'NO_COLOR'],
  init: PLATFORM,
  sync: PLATFORM,
  report: PLATFORM,
  enrol: PLATFORM,
  service: ['LOCALSIGN_SERVICE_FILE', 'NO_COLOR'],
};

/** [name, what it sets] for the variables `command` reads (a subcommand: its parent's); others read the config dir's. */
export function environmentOf(command: string): [string, string][] {
  const names = BY_COMMAND[command] ?? BY_COMMAND[command.split(' ')[0]!] ?? LOCAL;
  return names.map((name) => [name, VARIABLES[name]!]);
}
