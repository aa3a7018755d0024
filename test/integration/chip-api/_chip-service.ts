/**
 * Shared steps of the signature-card tests (issue 16): `init --embedded` on a PKCS#11 module with
 * the flags a test gives, an application key, the service started with the token's environment,
 * its credentials, and a one-page PDF to sign.
 */
import { PDFDocument } from 'pdf-lib';
import { expect } from 'vitest';
import { parseJson, runCli } from '../../helpers/cli';
import { authed, startServiceProcess, type ServiceProcess } from '../../helpers/service-process';

export interface ChipCredential {
  credential_key: string;
  type: string;
  name: string;
  address?: string;
  pin_per_signature?: boolean;
  pin_per_request?: boolean;
}

/** `localsign init --embedded --chip-module MODULE …chipArgs --json`, which must succeed; its answer. */
export function initChip(home: string, module: string, chipArgs: string[], env: NodeJS.ProcessEnv): Record<string, unknown> {
  const init = runCli(['init', '--embedded', '--chip-module', module, ...chipArgs, '--json'], { home, env });
  expect(init.status, init.stderr).toBe(0);
  return parseJson(init);
}

export function newWrapper(home: string): { key: string; secret: string } {
  return parseJson<{ key: string; secret: string }>(runCli(['wrapper:create', '--json'], { home }));
}

/** The service on `home` with `env` (the token's configuration, its PIN variable), and what it lists. */
export async function startWithChip(
  home: string,
  wrapper: { key: string; secret: string },
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): Promise<{ service: ServiceProcess; call: ReturnType<typeof authed>; credentials: ChipCredential[] }> {
  const service = await startServiceProcess({ home, env, args });
  const call = authed(service.url, wrapper);
  const credentials = ((await (await call('/v1/credentials')).json()) as { credentials: ChipCredential[] }).credentials;
  return { service, call, credentials };
}

export async function onePagePdfBase64(): Promise<string> {
  const doc = await PDFDocument.create();
  doc.addPage([300, 300]);
  return Buffer.from(await doc.save()).toString('base64');
}
