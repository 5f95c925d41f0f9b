-- docs/decisions.md, D-247: every statement that changes connections bumps its counter in table_versions, in the
-- transaction of the change, so each process's cache of connections by hook token sees any process's change (a
-- revocation, a rotation) at its next read of the counter.
INSERT INTO "table_versions" ("name", "version") VALUES ('connections', 0) ON CONFLICT ("name") DO NOTHING;
--> statement-breakpoint
CREATE TRIGGER "connections_version_bump"
AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "connections"
FOR EACH STATEMENT EXECUTE FUNCTION "bump_table_version"();
