import { serviceFilePath } from './service-file';

/**
 * The only reader of process.env (STYLE §3.5). Flags are passed in by the CLI; everything else in
 * the service receives the typed, frozen Config built from this.
 */
export interface RawSettings {
  home?: string;
  host?: string;
  port?: string;
  maxBody?: string;
  maxBodyMemory?: string;
  maxConnections?: string;
  diskQuota?: string;
  requestTimeout?: string;
  tsaUrl?: string;
  /** serve --pades-level: the PAdES level of requests that do not ask for one. */
  padesLevel?: string;
  /** PEM file of the trust anchors local validation checks chains against (--trust). */
  trustFile?: string;
  receiveListen?: string;
  allowHost?: string[];
  allowOrigin?: string[];
  workers?: string;
  /** Per-document limits of the PDF workers: seconds per step, MiB of heap per worker. */
  documentTimeLimit?: string;
  documentMemoryLimit?: string;
  retentionDays?: string;
  retentionMax?: string;
  /** serve --allow-remote: listening beyond loopback is on purpose. */
  allowRemote?: boolean;
  rateLimit?: string;
  rateBurst?: string;
  headerTimeout?: string;
  bodyTimeout?: string;
  /** Tests only (LOCALSIGN_TEST_FAULT): see Config.testFault. No flag sets it. */
  testFault?: string;
}

export interface EnvSnapshot {
  userHome: string;
  settings: RawSettings;
  /** Values of secrets named by the operator (e.g. --chip-pin-env VAR) are read through this. */
  readVar(name: string): string | undefined;
  isTty: boolean;
  /** Outbound proxies as curl and most tools read them (lowercase wins, as in curl). */
  proxy: { httpProxy: string | null; httpsProxy: string | null; noProxy: string | null };
  /**
   * The application key the CLI's service commands (`sign`, `results`, …) use: LOCALSIGN_KEY and
   * LOCALSIGN_SECRET, the names `serve --demo` prints; LOCALSIGN_URL: the service to call.
   */
  apiKey?: { key: string | null; secret: string | null; url: string | null };
  /** NO_COLOR set to anything non-empty (https://no-color.org): no ANSI colours on any stream. */
  noColor: boolean;
  /**
   * The installed service's settings file (service-file.ts), read when no home is given;
   * LOCALSIGN_SERVICE_FILE moves it (tests, packagers), set to "" to ignore any.
   */
  serviceFile?: string | null;
  /** Windows: %ProgramData%, where the system service keeps its data. */
  programData?: string;
}

/**
 * Windows: %SystemRoot% (the system tools are run by full path under it, config/windows-tools.ts)
 * and %USERPROFILE% (a config dir inside it was made by its user: config/windows-acl.ts). Apart
 * from readEnv: the config layer needs them below the CLI's settings. Node's process.env is
 * case-insensitive on Windows; windir is the older name of SystemRoot.
 */
export function readWindowsEnv(env: NodeJS.ProcessEnv = process.env): { systemRoot: string | undefined; userProfile: string | undefined } {
  return { systemRoot: env.SystemRoot ?? env.SYSTEMROOT ?? env.windir ?? env.WINDIR, userProfile: env.USERPROFILE };
}

function list(value: string | undefined): string[] | undefined {
  return value ? value.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
}

/**
 * What a worker may see of the environment: the names the runtime itself reads (the time zone and
 * locale for ICU, a runtime's ICU data, Windows' system folder), nothing else. Workers read no
 * setting: the chip PIN variable (`--chip-pin-env`), LOCALSIGN_SECRET, proxy credentials in
 * HTTPS_PROXY and whatever else the service was started with stay with the service.
 */
const WORKER_VARIABLES = new Set(['TZ', 'LANG', 'LC_ALL', 'NODE_ICU_DATA', 'SYSTEMROOT', 'WINDIR']);

/**
 * The environment of a worker (a signing thread, a PDF worker process): the WORKER_VARIABLES the
 * service has, and `extra`. An operator's NODE_OPTIONS is not passed on: a PDF worker gets its
 * own (heap limit, permissions), and a `--require` hook would run beside strangers' documents.
 */
export function workerEnvironment(extra: { NODE_OPTIONS?: string } = {}, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  // Names compared in upper case: Windows' own are SystemRoot and windir.
  for (const [name, value] of Object.entries(env)) if (value !== undefined && WORKER_VARIABLES.has(name.toUpperCase())) out[name] = value;
  if (extra.NODE_OPTIONS) out.NODE_OPTIONS = extra.NODE_OPTIONS;
  return out;
}

/** LOCALSIGN_TEST_FAULT, read in the test build only (config.ts testFaultOf says why). */
function testFaultVariable(env: NodeJS.ProcessEnv): string | undefined {
  TEST_FAULT: return env.LOCALSIGN_TEST_FAULT || undefined;
  return undefined;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): EnvSnapshot {
  return {
    userHome: env.HOME ?? env.USERPROFILE ?? '.',
    settings: {
      home: env.LOCALSIGN_HOME || undefined,
      host: env.LOCALSIGN_HOST || undefined,
      port: env.LOCALSIGN_PORT || undefined,
      maxBody: env.LOCALSIGN_MAX_BODY || undefined,
      maxBodyMemory: env.LOCALSIGN_MAX_BODY_MEMORY || undefined,
      maxConnections: env.LOCALSIGN_MAX_CONNECTIONS || undefined,
      diskQuota: env.LOCALSIGN_DISK_QUOTA || undefined,
      requestTimeout: env.LOCALSIGN_REQUEST_TIMEOUT || undefined,
      tsaUrl: env.LOCALSIGN_TSA_URL || undefined,
      padesLevel: env.LOCALSIGN_PADES_LEVEL || undefined,
      trustFile: env.LOCALSIGN_TRUST || undefined,
      receiveListen: env.LOCALSIGN_RECEIVE_LISTEN || undefined,
      allowHost: list(env.LOCALSIGN_ALLOW_HOST),
      allowOrigin: list(env.LOCALSIGN_ALLOW_ORIGIN),
      workers: env.LOCALSIGN_WORKERS || undefined,
      documentTimeLimit: env.LOCALSIGN_DOCUMENT_TIME_LIMIT || undefined,
      documentMemoryLimit: env.LOCALSIGN_DOCUMENT_MEMORY_LIMIT || undefined,
      retentionDays: env.LOCALSIGN_RETENTION_DAYS || undefined,
      retentionMax: env.LOCALSIGN_RETENTION_MAX || undefined,
      allowRemote: env.LOCALSIGN_ALLOW_REMOTE ? /^(1|true|yes)$/i.test(env.LOCALSIGN_ALLOW_REMOTE) : undefined,
      rateLimit: env.LOCALSIGN_RATE_LIMIT || undefined,
      rateBurst: env.LOCALSIGN_RATE_BURST || undefined,
      headerTimeout: env.LOCALSIGN_HEADER_TIMEOUT || undefined,
      bodyTimeout: env.LOCALSIGN_BODY_TIMEOUT || undefined,
      testFault: testFaultVariable(env),
    },
    readVar: (name) => env[name],
    programData: env.ProgramData ?? env.PROGRAMDATA ?? env.ALLUSERSPROFILE,
    serviceFile: env.LOCALSIGN_SERVICE_FILE !== undefined ? env.LOCALSIGN_SERVICE_FILE || null : serviceFilePath(process.platform, env.ProgramData ?? env.PROGRAMDATA ?? env.ALLUSERSPROFILE),
    isTty: Boolean(process.stdin.isTTY),
    noColor: Boolean(env.NO_COLOR),
    apiKey: { key: env.LOCALSIGN_KEY || null, secret: env.LOCALSIGN_SECRET || null, url: env.LOCALSIGN_URL || null },
    proxy: {
      httpProxy: env.http_proxy || env.HTTP_PROXY || null,
      httpsProxy: env.https_proxy || env.HTTPS_PROXY || null,
      noProxy: env.no_proxy || env.NO_PROXY || null,
    },
  };
}
