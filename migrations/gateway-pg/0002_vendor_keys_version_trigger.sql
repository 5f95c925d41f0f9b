-- docs/decisions.md, D-247: every statement that changes vendor_keys bumps its counter in table_versions, in the
-- transaction of the change, so each process's key cache sees any process's change at its next read of the counter.
INSERT INTO "table_versions" ("name", "version") VALUES ('vendor_keys', 0) ON CONFLICT ("name") DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "bump_table_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "table_versions" ("name", "version") VALUES (TG_TABLE_NAME, 1)
  ON CONFLICT ("name") DO UPDATE SET "version" = "table_versions"."version" + 1;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "vendor_keys_version_bump"
AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "vendor_keys"
FOR EACH STATEMENT EXECUTE FUNCTION "bump_table_version"();
