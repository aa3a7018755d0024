/**
 * The only reader of process.env (STYLE §3.5). Flags are passed in by the CLI; everything else in
 * the service receives the typed, frozen Config built from this.
 */
export interface RawSettings {
  home?: string;
  host?: string;
  port?: string;
  maxBody?: string;
  requestTimeout?: string;
  tsaUrl?: string;
  allowHost?: string[];
  allowOrigin?: string[];
  workers?: string;
  retentionDays?: string;
  retentionMax?: string;
}

export interface EnvSnapshot {
  userHome: string;
  settings: RawSettings;
  /** Values of secrets named by the operator (e.g. --chip-pin-env VAR) are read through this. */
  readVar(name: string): string | undefined;
  isTty: boolean;
}

function list(value: string | undefined): string[] | undefined {
  return value ? value.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): EnvSnapshot {
  return {
    userHome: env.HOME ?? env.USERPROFILE ?? '.',
    settings: {
      home: env.LOCALSIGN_HOME || undefined,
      host: env.LOCALSIGN_HOST || undefined,
      port: env.LOCALSIGN_PORT || undefined,
      maxBody: env.LOCALSIGN_MAX_BODY || undefined,
      requestTimeout: env.LOCALSIGN_REQUEST_TIMEOUT || undefined,
      tsaUrl: env.LOCALSIGN_TSA_URL || undefined,
      allowHost: list(env.LOCALSIGN_ALLOW_HOST),
      allowOrigin: list(env.LOCALSIGN_ALLOW_ORIGIN),
      workers: env.LOCALSIGN_WORKERS || undefined,
      retentionDays: env.LOCALSIGN_RETENTION_DAYS || undefined,
      retentionMax: env.LOCALSIGN_RETENTION_MAX || undefined,
    },
    readVar: (name) => env[name],
    isTty: Boolean(process.stdin.isTTY),
  };
}
