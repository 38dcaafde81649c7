import { z } from 'zod';

/**
 * The one config schema. Keys are snake_case as the seeds write them (`rollout.n`, `algorithm.adv_estimator`);
 * unknown keys are rejected; every field says what it is. `configs/defaults.yaml` is generated from this file
 * (`npm run gen:defaults`) and CI checks that it is current.
 */

const limits = z
  .object({
    memory_mb: z.number().int().positive().default(2048).describe('Memory of all processes together, MiB.'),
    pids: z.number().int().positive().default(512).describe('Processes and threads alive at once.'),
    cpus: z.number().positive().default(1).describe('CPU cores worth of time.'),
    disk_mb: z.number().int().positive().default(4096).describe('Bytes the sandbox may write, MiB.'),
    output_kb: z.number().int().positive().default(1024).describe("Default cap on one exec's output, KiB."),
  })
  .strict();

export const sandboxSchema = z
  .object({
    provider: z.enum(['local', 'docker', 'e2b']).default('local').describe('Where sandboxes run.'),
    ttl_s: z.number().int().positive().default(3600).describe('Lifetime after which gc removes a sandbox.'),
    network: z.boolean().default(false).describe('Give sandboxes network access (off: loopback only).'),
    limits: limits.default(limits.parse({})),
    e2b: z
      .object({
        domain: z
          .string()
          .default('e2b.app')
          .describe('E2B domain; AGS: <region>.tencentags.com (env E2B_DOMAIN).'),
        api_url: z
          .string()
          .nullable()
          .default(null)
          .describe('Lifecycle API URL (default https://api.<domain>).'),
        sandbox_url: z
          .string()
          .nullable()
          .default(null)
          .describe('In-sandbox API URL override (self-hosted).'),
        template_map: z.string().nullable().default(null).describe('JSON file mapping image → template.'),
      })
      .strict()
      .default({ domain: 'e2b.app', api_url: null, sandbox_url: null, template_map: null }),
  })
  .strict();

export const configSchema = z
  .object({
    sandbox: sandboxSchema.default(sandboxSchema.parse({})),
  })
  .strict();

export type Config = z.infer<typeof configSchema>;
export type SandboxConfig = z.infer<typeof sandboxSchema>;
