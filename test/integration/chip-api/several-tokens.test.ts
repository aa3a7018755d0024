/**
 * Issue 16 "Several tokens": two cards on one module, `--chip-token` given twice with a PIN
 * variable each (or `--chip-all-tokens`). The credentials of each are listed with the token's
 * label, each token has its own session and PIN, and a card pulled out does not stop the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, runCli } from '../../helpers/cli';
import { type authed, waitForResult, type ServiceProcess } from '../../helpers/service-process';
import { createSoftHsmTokens, type SoftHsmTokenSet } from '../../helpers/softhsm';
import { makeTmpHome } from '../../helpers/tmp-home';
import { initChip, newWrapper, startWithChip, type ChipCredential } from './_chip-service';

describe('two cards on one module', () => {
  const home = makeTmpHome();
  let set: SoftHsmTokenSet;
  let service: ServiceProcess;
  let call: ReturnType<typeof authed>;
  let credentials: ChipCredential[];
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    set = await createSoftHsmTokens(['card-a', 'card-b']);
    // Each card its own PIN, each read from its own variable.
    env = { SOFTHSM2_CONF: set.conf, PIN_A: set.token('card-a').pin, PIN_B: set.token('card-b').pin };
    const init = initChip(home.home, set.modulePath, ['--chip-token', 'card-a', '--chip-token', 'card-b', '--chip-pin-env', 'PIN_A', '--chip-pin-env', 'PIN_B'], env);
    expect(init).toMatchObject({ paired: true, chip: 'pkcs11', credentials: 6 });
    ({ service, call, credentials } = await startWithChip(home.home, newWrapper(home.home), env));
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await set?.cleanup();
    home.cleanup();
  });

  const walletOf = (card: string) => credentials.find((c) => c.type === 'evm' && c.name.startsWith(`${card}: `))!;
  const signWith = async (c: ChipCredential, n: number) => {
    const res = await call('/v1/blockchain/sign', { method: 'POST', body: JSON.stringify({ tx_hash: '0x' + n.toString(16).padStart(2, '0').repeat(32), credential_key: c.credential_key }) });
    expect(res.status).toBe(202);
    return waitForResult(call, ((await res.json()) as { request_id: string }).request_id);
  };

  it('lists the keys of both cards, each named with its token\'s label', () => {
    expect(credentials.map((c) => c.name).sort()).toEqual([
      'card-a: p256-signer',
      'card-a: rsa-signer',
      'card-a: secp256k1-wallet',
      'card-b: p256-signer',
      'card-b: rsa-signer',
      'card-b: secp256k1-wallet',
    ]);
  });

  it('signs on each card with its own PIN; a card pulled out leaves the other signing', async () => {
    expect((await signWith(walletOf('card-a'), 1)).status).toBe('DONE');
    expect((await signWith(walletOf('card-b'), 2)).status).toBe('DONE');
    await set.unplugToken('card-b');
    const gone = await signWith(walletOf('card-b'), 3);
    expect(gone.status).toBe('ERROR');
    expect(String(gone.error)).toContain("'card-b'");
    expect((await signWith(walletOf('card-a'), 4)).status).toBe('DONE');
    await set.plugToken('card-b');
    expect((await signWith(walletOf('card-b'), 5)).status).toBe('DONE');
  });

  it('--chip-all-tokens takes every token present, each with the PIN source given', () => {
    const other = makeTmpHome();
    try {
      // With a PIN per request, listing needs no login: both cards' keys are listed.
      const init = runCli(['init', '--embedded', '--chip-module', set.modulePath, '--chip-all-tokens', '--chip-pin-per-request', '--json'], { home: other.home, env });
      expect(init.status, init.stderr).toBe(0);
      expect(parseJson(init)).toMatchObject({ credentials: 6 });
      // The same PIN variable for both: card-b refuses card-a's PIN, and init names the card.
      const wrong = runCli(['init', '--embedded', '--chip-module', set.modulePath, '--chip-all-tokens', '--chip-pin-env', 'PIN_A'], { home: other.home, env });
      expect(wrong.status).toBe(1);
      expect(wrong.stderr).toMatch(/PIN incorrect on token 'card-b'/);
      const usage = runCli(['init', '--embedded', '--chip-module', set.modulePath, '--chip-all-tokens', '--chip-token', 'card-a', '--chip-pin-env', 'PIN_A'], { home: other.home, env });
      expect(usage.status).toBe(2);
      expect(usage.stderr).toContain('--chip-all-tokens takes every token: give no --chip-token with it');
    } finally {
      other.cleanup();
    }
  });
});
