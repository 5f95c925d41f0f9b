import { resolve } from "node:path";
import { ConfigError } from "../../config.js";
import { digestSecret, parseApiKey } from "../../contract/api-key.js";
import { openSecrets, sealSecrets } from "../connections/connection-secrets.js";
import { createConnection } from "../connections/create-connection.js";
import { digestHookToken } from "../connections/hook-token.js";
import type { GatewayContext } from "../context.js";
import {
  createUpstreamCredential,
  openUpstreamCredential,
  rotateUpstreamCredential,
} from "../credentials/upstream-credentials.js";
import { createVendorKey, updateVendorKey } from "../keys/vendor-keys.js";
import { loadProfileDir } from "../profiles/index.js";
import { createProfile, listVersions, publishProfileVersion, saveProfileVersion } from "../profiles-admin/profiles.js";
import type { ConnectionChange } from "../storage/connections/index.js";
import type { StoredSample } from "../storage/profiles/index.js";
import { createCompany } from "../tenants/create-company.js";
import { createOwner } from "../tenants/create-owner.js";
import type { ConfigFile, LoadedConfig } from "./config-file.js";
import { resolveSecret } from "./config-file.js";

/**
 * Applies a config file to the database, idempotently: running it twice changes nothing, and editing it changes
 * only what was edited (a changed profile becomes a new published version; a changed credential is rotated).
 */
export async function applyConfig({
  ctx,
  loaded,
  env,
}: {
  ctx: GatewayContext;
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
}): Promise<void> {
  for (const company of loaded.config.companies) {
    const companyId = `co_${company.id}`;
    const where = `company ${company.id}`;
    await createCompany({ ctx, input: { id: companyId, name: company.name, limits: company.limits ?? null } });

    for (const owner of company.owners) {
      const password = resolveSecret(
        { value: owner.password, valueEnv: owner.passwordEnv },
        env,
        `${where}, owner ${owner.email}`,
      );
      await createOwner({
        ctx,
        input: { companyId, email: owner.email, name: owner.name, role: owner.role, password },
      });
    }

    const credentialIds = new Map<string, string>();
    for (const credential of company.credentials) {
      const value = resolveSecret(credential, env, `${where}, credential ${credential.name}`);
      const existing = await ctx.credentials.findByName(companyId, credential.name);
      if (!existing) {
        credentialIds.set(
          credential.name,
          (await createUpstreamCredential({ ctx, companyId, input: { name: credential.name, value } })).id,
        );
      } else {
        if (openUpstreamCredential(ctx, existing) !== value) {
          await rotateUpstreamCredential({ ctx, companyId, credentialId: existing.id, value });
        }
        credentialIds.set(credential.name, existing.id);
      }
    }

    const publishedVersion = new Map<string, string>();
    for (const entry of company.profiles) {
      const dir = resolve(loaded.baseDir, entry.path);
      const loadedProfile = await loadProfileDir(dir);
      const versionId = await applyProfile(ctx, companyId, loadedProfile, `${where}, profile ${dir}`);
      publishedVersion.set(loadedProfile.name, versionId);
    }

    for (const key of company.vendorKeys) {
      const keyWhere = `${where}, vendor key ${key.name}`;
      const credentialId = credentialIds.get(key.credential);
      if (!credentialId) throw new ConfigError(`${keyWhere}: no credential named ${key.credential}`);
      const profileVersion = (name: string | undefined) => {
        if (!name) return null;
        const id = publishedVersion.get(name);
        if (!id) throw new ConfigError(`${keyWhere}: no profile named ${name} in this company`);
        return id;
      };
      const fullKey = resolveSecret({ value: key.key, valueEnv: key.keyEnv }, env, keyWhere);
      const parsed = parseApiKey(fullKey);
      const environment = ctx.settings.mode === "live" ? "live" : "test";
      if (!parsed || parsed.environment !== environment) {
        throw new ConfigError(`${keyWhere}: must be a svc_${environment}_… key (<keyId>.<secret>)`);
      }
      const bindings = {
        name: key.name,
        credentialId,
        leadProfileVersionId: profileVersion(key.leadProfile),
        appointmentProfileVersionId: profileVersion(key.appointmentProfile),
        responseMode: key.responseMode ?? ("async" as const),
      };
      const existing = await ctx.vendorKeys.get(parsed.keyId);
      if (existing && existing.companyId !== companyId) {
        throw new ConfigError(`${keyWhere}: key id ${parsed.keyId.slice(0, 14)}… belongs to another company`);
      }
      if (existing) {
        await updateVendorKey({ ctx, companyId, keyId: existing.id, input: bindings });
        await ctx.vendorKeys.update(existing.id, {
          secretDigest: digestSecret(parsed.secret),
          scopes: key.scopes,
          partnerType: key.partnerType,
          revokedAt: null,
        });
      } else {
        await createVendorKey({
          ctx,
          companyId,
          input: { ...bindings, partnerType: key.partnerType, scopes: key.scopes, fixedKey: parsed },
        });
      }
    }

    for (const connection of company.connections) {
      await applyConnection(ctx, companyId, connection, credentialIds, env, `${where}, connection ${connection.name}`);
    }
  }
}

/**
 * A connection of the file: made once (its preset's profile and its own vendor key with it), then kept as the file
 * says — its secrets and its fixed hook token — without a second profile or key. A connection made without a fixed
 * token logs its hook URL once, at the start that made it.
 */
async function applyConnection(
  ctx: GatewayContext,
  companyId: string,
  connection: ConfigFile["companies"][number]["connections"][number],
  credentialIds: Map<string, string>,
  env: NodeJS.ProcessEnv,
  where: string,
): Promise<void> {
  const credentialId = credentialIds.get(connection.credential);
  if (!credentialId) throw new ConfigError(`${where}: no credential named ${connection.credential}`);
  const secrets = Object.fromEntries(
    Object.entries(connection.secrets).map(([name, ref]) => [
      name,
      resolveSecret(ref, env, `${where}, secret ${name}`),
    ]),
  );
  const token =
    connection.hookToken || connection.hookTokenEnv
      ? resolveSecret({ value: connection.hookToken, valueEnv: connection.hookTokenEnv }, env, `${where}, hookToken`)
      : undefined;
  const existing = (await ctx.connections.listOfCompany(companyId)).find((c) => c.name === connection.name);
  if (!existing) {
    try {
      const made = await createConnection({
        ctx,
        companyId,
        input: { name: connection.name, preset: connection.preset, secrets, credentialId, fixedToken: token },
      });
      if (!token)
        ctx.log.info({ connectionId: made.id, name: connection.name }, `hook URL (shown once): ${made.hookUrl}`);
    } catch (error) {
      throw new ConfigError(`${where}: ${(error as Error).message}`);
    }
    return;
  }
  if (existing.preset !== connection.preset) {
    throw new ConfigError(
      `${where}: preset ${connection.preset} differs from the stored ${existing.preset ?? "(none)"}`,
    );
  }
  const change: ConnectionChange = { revokedAt: null };
  if (token && digestHookToken(token) !== existing.tokenDigest) change.tokenDigest = digestHookToken(token);
  const opened = Object.fromEntries(openSecrets(ctx.sealer, existing.id, existing.sealedSecrets));
  if (JSON.stringify(opened) !== JSON.stringify(secrets)) {
    change.sealedSecrets = sealSecrets(ctx.sealer, existing.id, secrets);
  }
  await ctx.connections.update(existing.id, change);
}

async function applyProfile(
  ctx: GatewayContext,
  companyId: string,
  loaded: {
    name: string;
    kind: "lead" | "appointment" | "outbound";
    description?: string;
    expression: string;
    samples: StoredSample[];
  },
  where: string,
): Promise<string> {
  const existing = await ctx.profiles.profileByName(companyId, loaded.name);
  const profile =
    existing ??
    (await createProfile({
      ctx,
      companyId,
      input: { name: loaded.name, kind: loaded.kind, description: loaded.description },
    }));
  if (profile.kind !== loaded.kind)
    throw new ConfigError(`${where}: kind ${loaded.kind} differs from the stored ${profile.kind}`);
  const latest = (await listVersions({ ctx, companyId, profileId: profile.id }))[0];
  const same =
    latest &&
    latest.expression === loaded.expression &&
    JSON.stringify(latest.samples) === JSON.stringify(loaded.samples);
  const versionId = same
    ? latest.id
    : (
        await saveProfileVersion({
          ctx,
          companyId,
          profileId: profile.id,
          input: { expression: loaded.expression, samples: loaded.samples },
        })
      ).version.id;
  try {
    await publishProfileVersion({ ctx, companyId, versionId });
  } catch (error) {
    throw new ConfigError(`${where}: cannot publish: ${(error as Error).message}`);
  }
  return versionId;
}
