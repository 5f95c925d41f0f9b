import { describe, expect, it } from "vitest";
import { answerDeclarationSchema, renderAnswer } from "../../../../src/gateway/connections/proofs/index.js";

/** docs/connections.md, "Proofs and handshakes": the answer a vendor gets once its request is stored. */
const payload = {
  lead: { id: 'L-1"2', name: "Ada <Lovelace> & co", note: "line\nbreak\\", score: 7, test: false, none: null },
  items: [{ id: "first" }, { id: "second" }],
  "@id": "xml-attribute",
  control: "a\u0001b",
};
const render = (contentType: "text/plain" | "application/json" | "application/xml", body: string) =>
  renderAnswer(answerDeclarationSchema.parse({ contentType, body }), payload);

describe("placeholders", () => {
  it("fill from dotted paths, array indexes and XML-style names; a missing path renders empty", () => {
    expect(render("text/plain", "{{lead.id}}|{{ items.1.id }}|{{@id}}|{{lead.missing}}|{{nowhere.at.all}}").body).toBe(
      'L-1"2|second|xml-attribute||',
    );
  });

  it("render numbers and booleans as text, null as nothing, objects as their JSON", () => {
    expect(render("text/plain", "{{lead.score}} {{lead.test}} [{{lead.none}}] {{items.0}}").body).toBe(
      '7 false [] {"id":"first"}',
    );
  });

  it("never reach a prototype and never evaluate: a value is not read again as a template", () => {
    const echoed = renderAnswer(answerDeclarationSchema.parse({ body: "{{a}}|{{constructor}}|{{a.length}}" }), {
      a: "{{b}}",
      b: "secret",
    });
    expect(echoed.body).toBe("{{b}}||");
  });
});

describe("escaping for the content type", () => {
  it("escapes for a JSON string literal inside application/json", () => {
    const answer = render("application/json", '{"id":"{{lead.id}}","note":"{{lead.note}}","c":"{{control}}"}');
    expect(JSON.parse(answer.body)).toEqual({ id: 'L-1"2', note: "line\nbreak\\", c: "a\u0001b" });
  });

  it("escapes markup and drops characters XML cannot hold inside application/xml", () => {
    const answer = render("application/xml", '<r n="{{lead.name}}">{{lead.id}}{{control}}</r>');
    expect(answer.body).toBe('<r n="Ada &lt;Lovelace&gt; &amp; co">L-1&quot;2ab</r>');
  });

  it("leaves text/plain as it is", () => {
    expect(render("text/plain", "{{lead.name}}").body).toBe("Ada <Lovelace> & co");
  });
});

describe("the answer declaration", () => {
  it("defaults to 200 text/plain with an empty body", () => {
    expect(renderAnswer(answerDeclarationSchema.parse({}), payload)).toEqual({
      status: 200,
      contentType: "text/plain",
      body: "",
    });
  });

  it("refuses a status outside 2xx and a content type outside the three", () => {
    expect(answerDeclarationSchema.safeParse({ status: 500 }).success).toBe(false);
    expect(answerDeclarationSchema.safeParse({ contentType: "text/html" }).success).toBe(false);
    expect(answerDeclarationSchema.safeParse({ status: 204, contentType: "application/xml" }).success).toBe(true);
  });
});
