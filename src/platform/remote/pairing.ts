import { readFileSync } from 'node:fs';
import { arch, hostname, platform as osPlatform } from 'node:os';
import { VERSION } from '../../config/version';
import { LocalsignError } from '../../domain/errors';
import { HttpClient, type NetSettings } from '../../net/http-client';
import type { RemotePairing } from '../../store/catalog-types';
import { checkPlatformUrl, pairWithPlatform, type MachineInfo } from './client';
import { osErrorInWords } from '../../domain/os-errors';

/** What the platform's console shows for this machine (PLATFORM.md `machine`). */
export function machineInfo(): MachineInfo {
  return { hostname: hostname(), os: osPlatform(), arch: arch(), version: VERSION };
}

/**
 * `init --platform-ca FILE`: PEM certificates the platform's TLS chain ends in, e.g. the root of
 * a TLS-inspecting proxy. Kept in the pairing so the running service trusts them too.
 */
export function readPlatformCa(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new LocalsignError('invalid', `cannot read --platform-ca ${file}: ${osErrorInWords(error)}`, { type: 'validation' });
  }
  const certs = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!certs) throw new LocalsignError('invalid', `--platform-ca ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`, { type: 'validation' });
  return certs.join('\n') + '\n';
}

function checkCallbackUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LocalsignError('invalid', `--callback-url must be a URL such as https://agent.example.com/receive, got "${raw.slice(0, 100)}"`, { type: 'validation' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new LocalsignError('invalid', '--callback-url must be an http:// or https:// URL', { type: 'validation' });
  return url.toString();
}

/**
 * Pairs this machine with a remote platform (PLATFORM.md "Pairing") and returns what pairing.json
 * keeps. The code is sent once and kept nowhere; a refused code is a clear error.
 */
export async function pairRemote(o: { platformUrl: string; code: string; callbackUrl: string | null; caPem: string | null; net: NetSettings; now: Date }): Promise<RemotePairing> {
  const platformUrl = checkPlatformUrl(o.platformUrl);
  const callbackUrl = o.callbackUrl ? checkCallbackUrl(o.callbackUrl) : null;
  if (!o.code.trim()) throw new LocalsignError('invalid', '--code must not be empty', { type: 'validation' });
  const http = new HttpClient(o.net, o.caPem);
  try {
    const answer = await pairWithPlatform(http, { platformUrl, code: o.code.trim(), machine: machineInfo(), callbackUrl });
    return {
      platform: 'remote',
      tenant_id: answer.tenant_id,
      paired_at: o.now.toISOString(),
      platform_url: platformUrl,
      agent_id: answer.agent_id,
      agent_secret: answer.agent_secret,
      callback_url: callbackUrl,
      platform_ca_pem: o.caPem,
    };
  } finally {
    await http.close();
  }
}
