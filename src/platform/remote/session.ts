import type { Config } from '../../config/config';
import { HttpClient } from '../../net/http-client';
import type { Pairing, RemotePairing } from '../../store/catalog-types';
import type { JsonCollection } from '../../store/json-collection';
import { notPairedError, RemotePlatform } from './client';
import type { CatalogueRules } from './wire';

/**
 * This machine's pairing as the running service sees it: the active pairing, the remote platform's
 * client for it (one per pairing, with its own CA; a new `init` is picked up on the next call), and
 * a 401 taken as the revocation.
 */
export class PairingSession {
  private platformHttp: { agentId: string; http: HttpClient } | null = null;

  constructor(
    readonly pairing: JsonCollection<{ pairing: Pairing | null }>,
    private readonly net: Config['net'],
    private readonly warn: (message: string) => void,
    /** The credential types and engines this service signs with: the platform's catalogue is read with them. */
    private readonly catalogue: CatalogueRules,
  ) {}

  /** The active pairing, or null when unpaired or revoked by the platform. */
  current(): Pairing | null {
    const p = this.pairing.get().pairing;
    return p && !p.revoked ? p : null;
  }

  /**
   * The 409 for a machine with no active pairing, saying why: a revoked pairing names the
   * revocation whichever call found it first (a job's poll may see the platform's 401 before
   * the operator's sync does), so the operator is never told merely "not paired".
   */
  notPaired(): ReturnType<typeof notPairedError> {
    return notPairedError(this.pairing.get().pairing?.revoked === true);
  }

  /** The remote platform of the current pairing, or null (unpaired, embedded, revoked). */
  currentRemote(): RemotePlatform | null {
    const p = this.current();
    return p?.platform === 'remote' ? this.remote(p) : null;
  }

  remote(p: RemotePairing): RemotePlatform {
    if (this.platformHttp?.agentId !== p.agent_id) {
      void this.platformHttp?.http.close().catch(() => undefined);
      this.platformHttp = { agentId: p.agent_id, http: new HttpClient(this.net, p.platform_ca_pem) };
    }
    return new RemotePlatform({ url: p.platform_url, agentSecret: p.agent_secret, http: this.platformHttp.http, onRevoked: () => this.markRevoked(p.agent_id), catalogue: this.catalogue });
  }

  /** PLATFORM.md: a platform 401 means the pairing was revoked: unpaired until `init` again. */
  private markRevoked(agentId: string): void {
    this.pairing.update((d) => {
      if (d.pairing?.platform === 'remote' && d.pairing.agent_id === agentId && !d.pairing.revoked) {
        d.pairing.revoked = true;
        this.warn('the platform revoked this machine\'s pairing (HTTP 401): paired is now false; pair again with `localsign init --platform URL --code CODE`');
      }
    });
  }

  async close(): Promise<void> {
    await this.platformHttp?.http.close();
  }
}
