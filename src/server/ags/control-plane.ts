import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../../errors.ts';
import { normalizeImageName } from '../../sandbox/images/index.ts';
import { headerValue, readRequestBody, sendJson } from '../http-io.ts';
import type { ServedSandbox } from '../sandbox-registry.ts';
import { KEY_LABEL, type ServerContext, serve } from '../server-context.ts';
import { AgsApiError } from './ags-errors.ts';
import type { AgsKeyStore } from './ags-keys.ts';
import { parseTc3Authorization, signaturesEqual, tc3Date, tc3Signature } from './tc3.ts';
import type { SandboxTool, ToolStore } from './tool-store.ts';

/** The AGS API version this control plane speaks (tencentcloud-sdk-nodejs `ags/v20250920`). */
export const AGS_VERSION = '2025-09-20';
const SERVICE = 'ags';
/** Tencent Cloud refuses a signature more than 5 minutes from its clock. */
const MAX_SKEW_S = 300;
const TOOL_TYPES = [
  'browser',
  'code-interpreter',
  'mobile',
  'osworld',
  'custom',
  'swebench',
  'aio',
  'android-world',
  'waa',
];

export interface AgsOptions {
  keys: AgsKeyStore;
  tools: ToolStore;
  /** The one region this control plane is (X-TC-Region must name it). */
  region: string;
  /** Seconds since the epoch; tests move the clock. */
  nowS?: () => number;
}

type Params = Record<string, unknown>;

/**
 * `sandgym serve` as a self-hosted AgentSandbox control plane: Tencent Cloud API 3.0 (POST /, X-TC-Action,
 * TC3-HMAC-SHA256 with the keys `serve --add-ags-key` issues, answers in `{"Response": {…, RequestId}}`)
 * for sandbox tools and instances. A tool names an image; the E2B API starts it as the template of the
 * tool's name, like AGS. The AGS keys are the account's: they see every instance of every tool.
 */
export class AgsControlPlane {
  private readonly nowS: () => number;
  /** Instance of each StartSandboxInstance ClientToken (dropped with the server, like its instances). */
  private readonly startedBy = new Map<string, string>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly o: AgsOptions,
  ) {
    this.nowS = o.nowS ?? (() => Math.floor(Date.now() / 1000));
    for (const t of o.tools.all()) this.setTemplate(t);
  }

  /** A Tencent Cloud API call: it names its action in a header no E2B call sends. */
  static claims(req: IncomingMessage): boolean {
    return req.headers['x-tc-action'] !== undefined;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const RequestId = randomUUID();
    try {
      const body = await readRequestBody(req, this.ctx.settings.maxJsonBytes).catch((e) => {
        throw new AgsApiError('InvalidParameter', errorMessage(e));
      });
      const secretId = this.authenticate(req, body);
      const action = headerValue(req, 'x-tc-action')!;
      const version = headerValue(req, 'x-tc-version');
      if (version !== AGS_VERSION) {
        throw new AgsApiError(
          'NoSuchVersion',
          `ags has API version ${AGS_VERSION}, not ${version ?? '(none)'}`,
        );
      }
      const region = headerValue(req, 'x-tc-region');
      if (region !== this.o.region) {
        throw new AgsApiError(
          'UnsupportedRegion',
          `this control plane is region ${this.o.region}, the request names ${region ?? 'no region'}: ` +
            'set AGS_REGION (and the region in E2B_DOMAIN) to it',
        );
      }
      const params = parseParams(body);
      const result = await this.dispatch(action, params, secretId);
      sendJson(res, 200, { Response: { ...result, RequestId } });
    } catch (e) {
      const error =
        e instanceof AgsApiError ? e : new AgsApiError('InternalError', `internal error: ${errorMessage(e)}`);
      if (!(e instanceof AgsApiError)) this.ctx.settings.log(`AGS ${RequestId}: ${errorMessage(e)}`);
      sendJson(res, 200, { Response: { Error: { Code: error.code, Message: error.message }, RequestId } });
    }
  }

  /** The SecretId that signed the request, or the Tencent Cloud error for why none did. */
  private authenticate(req: IncomingMessage, body: Buffer): string {
    const header = headerValue(req, 'authorization');
    if (!header) throw new AgsApiError('AuthFailure.SignatureFailure', 'the request is not signed');
    const auth = parseTc3Authorization(header);
    if (!auth)
      throw new AgsApiError('AuthFailure.InvalidAuthorization', 'malformed TC3-HMAC-SHA256 Authorization');
    const timestamp = Number(headerValue(req, 'x-tc-timestamp'));
    if (!Number.isSafeInteger(timestamp)) {
      throw new AgsApiError('AuthFailure.SignatureFailure', 'X-TC-Timestamp must be Unix seconds');
    }
    if (Math.abs(this.nowS() - timestamp) > MAX_SKEW_S) {
      throw new AgsApiError(
        'AuthFailure.SignatureExpire',
        `signature expired: X-TC-Timestamp ${timestamp} is over ${MAX_SKEW_S} s from the server's clock`,
      );
    }
    if (auth.service !== SERVICE || auth.date !== tc3Date(timestamp)) {
      throw new AgsApiError(
        'AuthFailure.SignatureFailure',
        'the credential scope is not this date and service ags',
      );
    }
    if (!auth.signedHeaders.includes('content-type') || !auth.signedHeaders.includes('host')) {
      throw new AgsApiError(
        'AuthFailure.SignatureFailure',
        'SignedHeaders must include content-type and host',
      );
    }
    const secretKey = this.o.keys.secretKey(auth.secretId);
    if (secretKey === undefined) {
      throw new AgsApiError('AuthFailure.SecretIdNotFound', `no such SecretId: ${auth.secretId}`);
    }
    const headers: Record<string, string> = {};
    for (const name of auth.signedHeaders) headers[name] = headerValue(req, name) ?? '';
    // Tencent's SDK signs the host without its port (URL.hostname): so does the check.
    headers.host = hostname(headers.host!);
    const url = new URL(req.url ?? '/', 'http://x');
    const expected = tc3Signature(
      {
        method: req.method ?? 'POST',
        path: url.pathname,
        query: url.search.slice(1),
        headers,
        signedHeaders: auth.signedHeaders,
        body,
        timestamp,
        service: SERVICE,
      },
      secretKey,
    );
    if (!signaturesEqual(expected, auth.signature)) {
      throw new AgsApiError('AuthFailure.SignatureFailure', 'the signature does not match the request');
    }
    return auth.secretId;
  }

  private dispatch(action: string, p: Params, secretId: string): Promise<Params> | Params {
    switch (action) {
      case 'CreateSandboxTool':
        return this.createTool(p);
      case 'DescribeSandboxToolList':
        return this.describeTools(p);
      case 'DeleteSandboxTool':
        return this.deleteTool(p);
      case 'StartSandboxInstance':
        return this.startInstance(p, secretId);
      case 'StopSandboxInstance':
        return this.stopInstance(p);
      case 'DescribeSandboxInstanceList':
        return this.describeInstances(p);
      default:
        throw new AgsApiError('InvalidAction', `no such action: ${action}`);
    }
  }

  private async createTool(p: Params): Promise<Params> {
    const token = optString(p, 'ClientToken', 64);
    const retried = token === undefined ? undefined : this.o.tools.byClientToken(token);
    if (retried) return { ToolId: retried.ToolId };
    const name = reqString(p, 'ToolName');
    if (!/^[A-Za-z0-9_-]{1,50}$/.test(name)) {
      throw new AgsApiError('InvalidParameterValue', 'ToolName: 1 to 50 of A-Z a-z 0-9 _ -');
    }
    const type = reqString(p, 'ToolType');
    if (!TOOL_TYPES.includes(type)) {
      throw new AgsApiError('InvalidParameterValue', `ToolType must be one of ${TOOL_TYPES.join(', ')}`);
    }
    const mode = this.networkMode(object(p.NetworkConfiguration, 'NetworkConfiguration', true)!);
    const custom = object(p.CustomConfiguration, 'CustomConfiguration', false);
    const image = custom === undefined ? undefined : optString(custom, 'Image', 1000);
    if (image === undefined) {
      throw new AgsApiError(
        'MissingParameter',
        'CustomConfiguration.Image: this control plane runs tools as images',
      );
    }
    let normalized: string;
    try {
      normalized = normalizeImageName(image);
    } catch (e) {
      throw new AgsApiError('InvalidParameterValue', `CustomConfiguration.Image: ${errorMessage(e)}`);
    }
    if (this.o.tools.byName(name)) {
      throw new AgsApiError('ResourceInUse', `a sandbox tool named ${name} exists`);
    }
    // A tool is the template of its name: it may not take over one of the server's own (base, --template).
    if (Object.hasOwn(this.ctx.settings.templates, name)) {
      throw new AgsApiError('ResourceInUse', `${name} is a template of this server: name the tool otherwise`);
    }
    const now = new Date(this.nowS() * 1000).toISOString();
    const tool = await this.o.tools.add({
      ToolName: name,
      ToolType: type,
      Status: 'ACTIVE',
      Description: optString(p, 'Description', 1000) ?? '',
      DefaultTimeoutSeconds: durationSeconds(p.DefaultTimeout, 'DefaultTimeout', 300),
      NetworkConfiguration: { NetworkMode: mode },
      Tags: tags(p.Tags),
      CreateTime: now,
      UpdateTime: now,
      CustomConfiguration: {
        Image: normalized,
        ...(typeof custom!.ImageRegistryType === 'string' && {
          ImageRegistryType: custom!.ImageRegistryType,
        }),
      },
      ...(token !== undefined && { ClientToken: token }),
    });
    this.setTemplate(tool);
    this.ctx.settings.log(`AGS tool ${tool.ToolId} ${name} created (${normalized})`);
    return { ToolId: tool.ToolId };
  }

  private networkMode(n: Params): string {
    const mode = reqString(n, 'NetworkMode');
    if (mode === 'SANDBOX') return mode;
    if (mode === 'PUBLIC') {
      if (!this.ctx.settings.allowNetwork) {
        throw new AgsApiError(
          'UnsupportedOperation',
          'NetworkMode PUBLIC: this server gives sandboxes no network (start it with --allow-network)',
        );
      }
      return mode;
    }
    throw new AgsApiError(
      'InvalidParameterValue',
      `NetworkMode ${mode}: this control plane has SANDBOX and PUBLIC`,
    );
  }

  private describeTools(p: Params): Params {
    const ids = stringList(p.ToolIds, 'ToolIds');
    const filters = filterList(p.Filters);
    const matched = this.o.tools
      .all()
      .filter((t) => ids === undefined || ids.includes(t.ToolId))
      .filter((t) => filters.every(([name, values]) => values.some((v) => toolField(t, name) === v)));
    const { offset, limit } = page(p);
    return {
      SandboxToolSet: matched.slice(offset, offset + limit).map(({ ClientToken: _, ...t }) => t),
      TotalCount: matched.length,
    };
  }

  private async deleteTool(p: Params): Promise<Params> {
    const tool = this.tool(reqString(p, 'ToolId'));
    await this.o.tools.remove(tool.ToolId);
    delete this.ctx.settings.templates[tool.ToolName];
    return {};
  }

  private async startInstance(p: Params, secretId: string): Promise<Params> {
    // A start retried with its ClientToken answers the instance the first one started, while it lives.
    const token = optString(p, 'ClientToken', 64);
    for (const [t, id] of this.startedBy) if (!this.ctx.registry.get(id)) this.startedBy.delete(t);
    const retried = token === undefined ? undefined : this.startedBy.get(token);
    if (retried !== undefined && this.ctx.registry.get(retried)) {
      return { Instance: this.instanceJson(this.ctx.registry.get(retried)!) };
    }
    const id = optString(p, 'ToolId', 100);
    const name = optString(p, 'ToolName', 100);
    const tool =
      id !== undefined ? this.tool(id) : name !== undefined ? this.o.tools.byName(name) : undefined;
    if (!tool)
      throw new AgsApiError(
        'ResourceNotFound',
        `no such sandbox tool: ${id ?? name ?? '(give ToolId or ToolName)'}`,
      );
    const timeoutS = durationSeconds(p.Timeout, 'Timeout', tool.DefaultTimeoutSeconds);
    if (timeoutS > this.ctx.settings.maxTimeoutS) {
      throw new AgsApiError(
        'InvalidParameterValue',
        `Timeout is over this server's ${this.ctx.settings.maxTimeoutS} s`,
      );
    }
    const metadata = Object.fromEntries(
      (Array.isArray(p.Metadata) ? (p.Metadata as Params[]) : []).map((m) => [
        String(m.Name),
        String(m.Value),
      ]),
    );
    const keyId = `ags-${secretId}`;
    const refusal = this.ctx.quotas.acquire(keyId);
    if (refusal) throw new AgsApiError('RequestLimitExceeded', refusal.message);
    const network = tool.NetworkConfiguration.NetworkMode === 'PUBLIC';
    let sandbox: ServedSandbox['sandbox'];
    try {
      sandbox = await this.ctx.settings.provider.create({
        image: tool.CustomConfiguration.Image,
        labels: { [KEY_LABEL]: keyId },
        ttlMs: this.ctx.settings.maxTimeoutS * 1000,
        network,
      });
    } catch (e) {
      this.ctx.quotas.release(keyId);
      throw new AgsApiError('FailedOperation', `cannot start ${tool.ToolName}: ${errorMessage(e)}`);
    }
    const served = serve(this.ctx, { id: keyId, label: 'ags' }, sandbox, {
      templateID: tool.ToolName,
      timeoutS,
      metadata,
      envVars: {},
      network,
    });
    if (token !== undefined) this.startedBy.set(token, served.id);
    return { Instance: this.instanceJson(served) };
  }

  private async stopInstance(p: Params): Promise<Params> {
    const served = this.instance(reqString(p, 'InstanceId'));
    await this.ctx.registry.kill(served.id);
    return {};
  }

  private describeInstances(p: Params): Params {
    const ids = stringList(p.InstanceIds, 'InstanceIds');
    const toolId = optString(p, 'ToolId', 100);
    const filters = filterList(p.Filters);
    const matched = this.instances()
      .map((s) => this.instanceJson(s))
      .filter((i) => ids === undefined || ids.includes(i.InstanceId))
      .filter((i) => toolId === undefined || i.ToolId === toolId)
      .filter((i) => filters.every(([name, values]) => values.includes(String(i[name as keyof typeof i]))));
    const { offset, limit } = page(p);
    return { InstanceSet: matched.slice(offset, offset + limit), TotalCount: matched.length };
  }

  /** Sandboxes of tools, whichever API started them. */
  private instances(): ServedSandbox[] {
    return this.ctx.registry.all().filter((s) => this.o.tools.byName(s.templateID));
  }

  private instance(id: string): ServedSandbox {
    const served = this.instances().find((s) => s.id === id);
    if (!served) throw new AgsApiError('ResourceNotFound', `no such sandbox instance: ${id}`);
    return served;
  }

  private instanceJson(s: ServedSandbox) {
    const tool = this.o.tools.byName(s.templateID)!;
    return {
      InstanceId: s.id,
      ToolId: tool.ToolId,
      ToolName: tool.ToolName,
      Status: 'RUNNING',
      TimeoutSeconds: Math.round((s.endAtMs - s.startedAtMs) / 1000),
      ExpiresAt: new Date(s.endAtMs).toISOString(),
      CreateTime: new Date(s.startedAtMs).toISOString(),
      UpdateTime: new Date(s.startedAtMs).toISOString(),
      NetworkMode: s.network ? 'PUBLIC' : 'SANDBOX',
      Metadata: Object.entries(s.metadata).map(([Name, Value]) => ({ Name, Value })),
    };
  }

  private tool(id: string): SandboxTool {
    const tool = this.o.tools.get(id);
    if (!tool) throw new AgsApiError('ResourceNotFound', `no such sandbox tool: ${id}`);
    return tool;
  }

  /** The E2B API starts a tool as the template of its name, like AGS's E2B plane. */
  private setTemplate(t: SandboxTool): void {
    this.ctx.settings.templates[t.ToolName] = t.CustomConfiguration.Image;
  }
}

function hostname(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
}

function parseParams(body: Buffer): Params {
  let json: unknown;
  try {
    json = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new AgsApiError('InvalidParameter', `the body is not JSON: ${errorMessage(e)}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new AgsApiError('InvalidParameter', 'the body must be a JSON object');
  }
  return json as Params;
}

function reqString(p: Params, name: string): string {
  const v = optString(p, name, 1000);
  if (v === undefined) throw new AgsApiError('MissingParameter', `${name} is required`);
  return v;
}

function optString(p: Params, name: string, max: number): string | undefined {
  const v = p[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '' || v.length > max) {
    throw new AgsApiError('InvalidParameterValue', `${name} must be a string of 1 to ${max} characters`);
  }
  return v;
}

function object(v: unknown, name: string, required: boolean): Params | undefined {
  if (v === undefined || v === null) {
    if (required) throw new AgsApiError('MissingParameter', `${name} is required`);
    return undefined;
  }
  if (typeof v !== 'object' || Array.isArray(v))
    throw new AgsApiError('InvalidParameterValue', `${name} must be an object`);
  return v as Params;
}

function stringList(v: unknown, name: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length > 100 || !v.every((x) => typeof x === 'string')) {
    throw new AgsApiError('InvalidParameterValue', `${name} must be a list of at most 100 strings`);
  }
  return v as string[];
}

function tags(v: unknown): { Key: string; Value: string }[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw new AgsApiError('InvalidParameterValue', 'Tags must be a list of {Key, Value}');
  return v.map((t: Params) => {
    if (typeof t?.Key !== 'string' || (t.Value !== undefined && typeof t.Value !== 'string')) {
      throw new AgsApiError('InvalidParameterValue', 'Tags must be a list of {Key, Value} strings');
    }
    return { Key: t.Key, Value: (t.Value as string | undefined) ?? '' };
  });
}

/** Filters as [Name, Values]; tools filter on ToolId, ToolName, ToolType, Status and `tag:<Key>`. */
function filterList(v: unknown): [string, string[]][] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw new AgsApiError('InvalidParameterValue', 'Filters must be a list of {Name, Values}');
  return v.map((f: Params) => {
    const values = stringList(f?.Values, 'Filters.Values');
    if (typeof f?.Name !== 'string' || values === undefined) {
      throw new AgsApiError('InvalidParameterValue', 'Filters must be a list of {Name, Values}');
    }
    return [f.Name, values];
  });
}

function toolField(t: SandboxTool, name: string): string | undefined {
  if (name.startsWith('tag:')) return t.Tags.find((tag) => tag.Key === name.slice(4))?.Value;
  if (name === 'ToolId' || name === 'ToolName' || name === 'ToolType' || name === 'Status') return t[name];
  throw new AgsApiError(
    'InvalidParameterValue',
    `no filter ${name}: ToolId, ToolName, ToolType, Status, tag:<Key>`,
  );
}

function page(p: Params): { offset: number; limit: number } {
  const offset = p.Offset ?? 0;
  const limit = p.Limit ?? 20;
  if (!Number.isSafeInteger(offset) || (offset as number) < 0) {
    throw new AgsApiError('InvalidParameterValue', 'Offset must be a whole number');
  }
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > 100) {
    throw new AgsApiError('InvalidParameterValue', 'Limit must be 1 to 100');
  }
  return { offset: offset as number, limit: limit as number };
}

/** AGS durations: "300s", "5m", "1h" (at most 24 h). */
export function durationSeconds(v: unknown, name: string, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  const m = typeof v === 'string' ? /^(\d{1,6})([smh])$/.exec(v) : null;
  const s = m ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'] : Number.NaN;
  if (!(s >= 1 && s <= 86_400)) {
    throw new AgsApiError('InvalidParameterValue', `${name} must be like "300s", "5m" or "1h", at most 24h`);
  }
  return s;
}
