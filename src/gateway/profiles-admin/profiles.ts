import { ApiError, badRequest, conflict, notFound } from "../../http/errors.js";
import { newId } from "../../ids.js";
import type { GatewayContext } from "../context.js";
import { compileProfile, type ProfileKind, runGoldenSamples } from "../profiles/index.js";
import type { ProfileRow, StoredSample, ProfileVersionRow as VersionRow } from "../storage/profiles/index.js";

export async function getProfileRow(ctx: GatewayContext, companyId: string, profileId: string): Promise<ProfileRow> {
  const row = await ctx.profiles.getProfileOfCompany(profileId, companyId);
  if (!row) throw notFound();
  return row;
}

export async function getVersionRow(ctx: GatewayContext, companyId: string, versionId: string): Promise<VersionRow> {
  const row = await ctx.profiles.getVersionOfCompany(versionId, companyId);
  if (!row) throw notFound();
  return row;
}

export async function createProfile({
  ctx,
  companyId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  input: { name: string; kind: ProfileKind; description?: string | null };
}) {
  const clash = await ctx.profiles.profileByName(companyId, input.name);
  if (clash) throw conflict(`a profile named "${input.name}" already exists`, { profileId: clash.id });
  const row: ProfileRow = {
    id: newId("prf"),
    companyId,
    name: input.name,
    kind: input.kind,
    description: input.description ?? null,
    createdAt: ctx.now().toISOString(),
  };
  await ctx.profiles.insertProfile(row);
  return row;
}

export async function listProfiles({ ctx, companyId }: { ctx: GatewayContext; companyId: string }) {
  const rows = await ctx.profiles.profilesOf(companyId);
  const keys = await ctx.vendorKeys.listOfCompany(companyId);
  const listed = [];
  for (const profile of rows) {
    const latest = await ctx.profiles.latestVersionOf(profile.id);
    const versionIds = new Set(await ctx.profiles.versionIdsOf(profile.id));
    const boundKeys = keys
      .filter(
        (k) =>
          (k.leadProfileVersionId && versionIds.has(k.leadProfileVersionId)) ||
          (k.appointmentProfileVersionId && versionIds.has(k.appointmentProfileVersionId)),
      )
      .map((k) => k.id);
    listed.push({
      ...profile,
      latestVersion: latest ? publicVersion(latest) : null,
      boundKeys,
    });
  }
  return listed;
}

export function publicVersion(row: VersionRow) {
  return {
    id: row.id,
    profileId: row.profileId,
    version: row.version,
    expression: row.expression,
    samples: row.samples,
    status: row.status,
    samplesPassed: row.samplesPassed,
    createdAt: row.createdAt,
    publishedAt: row.publishedAt,
  };
}

export async function listVersions({
  ctx,
  companyId,
  profileId,
}: {
  ctx: GatewayContext;
  companyId: string;
  profileId: string;
}) {
  await getProfileRow(ctx, companyId, profileId);
  return (await ctx.profiles.versionsOf(profileId)).map(publicVersion);
}

/**
 * Saves a new immutable draft version: the expression must compile (the error carries line and column), and the
 * golden samples are run so the owner sees at once whether it can be published.
 */
export async function saveProfileVersion({
  ctx,
  companyId,
  profileId,
  input,
}: {
  ctx: GatewayContext;
  companyId: string;
  profileId: string;
  input: { expression: string; samples: StoredSample[] };
}) {
  const profile = await getProfileRow(ctx, companyId, profileId);
  const compiled = compileProfile(input.expression);
  if (!compiled.ok) {
    throw badRequest(`expression: ${compiled.error.message}`, { field: "expression", ...compiled.error });
  }
  const id = newId("pv");
  const report = await runGoldenSamples(ctx.engine, {
    versionId: id,
    kind: profile.kind,
    expression: input.expression,
    samples: input.samples,
  });
  const latest = await ctx.profiles.latestVersionOf(profileId);
  const row: VersionRow = {
    id,
    profileId,
    companyId,
    version: (latest?.version ?? 0) + 1,
    expression: input.expression,
    samples: input.samples,
    status: "draft",
    samplesPassed: report.passed,
    createdAt: ctx.now().toISOString(),
    publishedAt: null,
  };
  await ctx.profiles.insertVersion(row);
  return { version: publicVersion(row), samples: report };
}

/** Publishing requires every golden sample to pass (re-run now, not trusted from save time). */
export async function publishProfileVersion({
  ctx,
  companyId,
  versionId,
}: {
  ctx: GatewayContext;
  companyId: string;
  versionId: string;
}) {
  const row = await getVersionRow(ctx, companyId, versionId);
  if (row.status === "published") return publicVersion(row);
  if (row.samples.length === 0) throw badRequest("samples: a profile needs at least one golden sample to be published");
  const profile = await getProfileRow(ctx, companyId, row.profileId);
  const report = await runGoldenSamples(ctx.engine, {
    versionId: row.id,
    kind: profile.kind,
    expression: row.expression,
    samples: row.samples,
  });
  if (!report.passed) {
    throw new ApiError("unprocessable", "a golden sample fails: fix it before publishing", {
      details: { samples: report },
    });
  }
  const publishedAt = ctx.now().toISOString();
  await ctx.profiles.publishVersion(row.id, publishedAt);
  const published = publicVersion({ ...row, status: "published", samplesPassed: true, publishedAt });
  // D-321: published all the same (the samples pass), but the owner hears which keys vanish.
  return report.warnings ? { ...published, warnings: report.warnings } : published;
}
