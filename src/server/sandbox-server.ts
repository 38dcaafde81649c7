import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage, isConfigError } from '../errors.ts';
import { ENVD_PORT, isRpcError } from '../sandbox/e2b/index.ts';
import { AgsControlPlane, type AgsOptions } from './ags/control-plane.ts';
import { sendRpcError } from './connect-server.ts';
import { envdRoute, type SandboxTarget, sandboxTarget } from './envd-routes.ts';
import { HostBudget } from './host-budget.ts';
import { HttpError, sendError } from './http-io.ts';
import { lifecycleRoute } from './lifecycle-routes.ts';
import { Quotas } from './quota.ts';
import { SandboxRegistry } from './sandbox-registry.ts';
import type { ServerContext } from './server-context.ts';
import { resolveServerOptions, type SandboxServerOptions, type ServerSettings } from './server-options.ts';
import { isSignedFileUrl, signedFileSandbox } from './signed-url.ts';

/**
 * `sandgym serve`: one HTTP server speaking the E2B API for sandboxes of a local provider. Lifecycle
 * calls and every sandbox's envd calls share the port; a request is for a sandbox when it carries E2B's
 * routing headers or a `<port>-<id>.<domain>` host. Closing it kills every sandbox it holds.
 */
export class SandboxServer {
  private readonly ctx: ServerContext;
  private readonly http: http.Server;
  private closing: Promise<void> | undefined;
  private readonly ags: AgsControlPlane | undefined;

  private constructor(
    readonly settings: ServerSettings,
    ags?: AgsOptions,
  ) {
    const budget = new HostBudget(settings.hostCaps);
    const quotas = new Quotas({
      maxSandboxes: settings.maxSandboxesPerKey,
      createsPerSecond: settings.createsPerSecondPerKey,
    });
    const registry = new SandboxRegistry(
      (served, why) => {
        quotas.release(served.keyId);
        budget.end(served.id);
        settings.log(`sandbox ${served.id} of key ${served.keyId} ${why}`);
      },
      (served, e) => settings.log(`sandbox ${served.id}: close failed: ${errorMessage(e)}`),
    );
    this.ctx = { settings, registry, quotas, budget, snapshotSources: new Map() };
    this.ags = ags && new AgsControlPlane(this.ctx, ags);
    this.http = http.createServer(
      {
        headersTimeout: settings.headersTimeoutMs,
        requestTimeout: settings.requestTimeoutMs,
        keepAliveTimeout: settings.keepAliveTimeoutMs,
        // How often Node checks the two timeouts above; its default (30 s) would let them overrun.
        connectionsCheckingInterval: Math.min(1000, Math.ceil(settings.headersTimeoutMs / 2)),
      },
      (req, res) => void this.handle(req, res),
    );
    this.http.setTimeout(settings.idleTimeoutMs, (socket) => socket.destroy());
  }

  static async start(options: SandboxServerOptions): Promise<SandboxServer> {
    const server = new SandboxServer(resolveServerOptions(options), options.ags);
    await new Promise<void>((resolve, reject) => {
      server.http.once('error', reject);
      server.http.listen(server.settings.port, server.settings.host, () => {
        server.http.off('error', reject);
        resolve();
      });
    });
    return server;
  }

  /** `http://host:port`: both the API URL and the sandbox URL of E2B clients. */
  get url(): string {
    const { address, port } = this.http.address() as AddressInfo;
    return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  }

  /** How many sandboxes the server holds. */
  get sandboxCount(): number {
    return this.ctx.registry.size;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (this.closing) throw new HttpError(503, 'sandgym serve is shutting down', { Connection: 'close' });
      if (this.ags && AgsControlPlane.claims(req)) return await this.ags.handle(req, res);
      const url = new URL(req.url ?? '/', 'http://sandgym.invalid');
      const target = sandboxTarget(req, this.settings.domain) ?? this.signedTarget(req, url);
      if (target) await envdRoute(this.ctx, target, req, res, url);
      else await lifecycleRoute(this.ctx, req, res, url);
    } catch (e) {
      this.fail(req, res, e);
    }
  }

  /** A signed /files URL names no sandbox when the client has one URL for all: its signature does. */
  private signedTarget(req: IncomingMessage, url: URL): SandboxTarget | undefined {
    if (!isSignedFileUrl(url)) return undefined;
    const served = signedFileSandbox(url, req.method ?? 'GET', this.ctx.registry.all());
    return { sandboxId: served.id, port: ENVD_PORT };
  }

  private fail(req: IncomingMessage, res: ServerResponse, e: unknown): void {
    if (e instanceof HttpError) sendError(res, e);
    else if (isRpcError(e)) sendRpcError(res, e);
    else if (isConfigError(e)) sendError(res, new HttpError(400, e.message));
    else {
      this.settings.log(
        `${req.method} ${req.url}: internal error: ${e instanceof Error ? (e.stack ?? e.message) : e}`,
      );
      sendError(res, new HttpError(500, `internal error: ${errorMessage(e)}`));
    }
  }

  /**
   * Stops taking requests, kills every sandbox (their open streams end with them), then closes the
   * connections that are left. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => this.http.close(() => resolve()));
      this.http.closeIdleConnections();
      await this.ctx.registry.killAll();
      const grace = setTimeout(() => this.http.closeAllConnections(), 2000);
      await stopped;
      clearTimeout(grace);
    })();
    return this.closing;
  }
}
