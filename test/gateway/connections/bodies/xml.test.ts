import { describe, expect, it } from "vitest";
import { parseHookBody } from "../../../../src/gateway/connections/bodies/index.js";
import { refusal, text } from "./fixtures.js";

const XML = "application/xml";
const parse = (body: string) => parseHookBody(text(body), XML);

describe("docs/connections.md, Bodies: XML conventions (D-282)", () => {
  it("is {root name: element}; an element with only text is that text, trimmed", async () => {
    expect(await parse("<lead>\n  <name>  Ada King </name>\n  <zip>02139</zip>\n</lead>")).toEqual({
      lead: { name: "Ada King", zip: "02139" },
    });
  });

  it("an empty element, written either way or holding only whitespace, is an empty string", async () => {
    expect(await parse("<lead><a/><b></b><c>  \n </c></lead>")).toEqual({ lead: { a: "", b: "", c: "" } });
    expect(await parse("<lead/>")).toEqual({ lead: "" });
  });

  it("attributes are @name; an element with attributes is an object, its text #text", async () => {
    expect(
      await parse('<lead id="L-1" source="web"><phone type="mobile">555 0100</phone><fax type="work"/></lead>'),
    ).toEqual({
      lead: {
        "@id": "L-1",
        "@source": "web",
        phone: { "@type": "mobile", "#text": "555 0100" },
        fax: { "@type": "work" },
      },
    });
  });

  it("text beside child elements is #text (its pieces trimmed and joined)", async () => {
    expect(await parse("<note>Call <b>after</b> five</note>")).toEqual({ note: { b: "after", "#text": "Callfive" } });
  });

  it("a child name repeated is an array in document order, wherever the others fall", async () => {
    expect(await parse("<lead><phone>1</phone><name>Ada</name><phone>2</phone><phone><n>3</n></phone></lead>")).toEqual(
      {
        lead: { phone: ["1", "2", { n: "3" }], name: "Ada" },
      },
    );
  });

  it("nothing is coerced: numbers, booleans and their look-alikes stay strings, in text and attributes", async () => {
    expect(
      await parse('<v n="1.0" b="true"><a>007</a><b>1e3</b><c>true</c><d>0x1F</d><e>-0</e><f>null</f></v>'),
    ).toEqual({
      v: { "@n": "1.0", "@b": "true", a: "007", b: "1e3", c: "true", d: "0x1F", e: "-0", f: "null" },
    });
  });

  it("the five predefined entities and character references are decoded once, in text and attributes", async () => {
    expect(await parse('<a t="&lt;&#65;&#x42;&gt;">&amp;amp; &quot;&apos; &#x1F600; &#233;</a>')).toEqual({
      a: { "@t": "<AB>", "#text": "&amp; \"' 😀 é" },
    });
  });

  it("values are trimmed as written, before references are decoded; attribute values are not otherwise normalised", async () => {
    expect(await parse('<a t=" x\ty\n ">&#32;padded&#32;</a>')).toEqual({ a: { "@t": "x\ty", "#text": " padded " } });
  });

  it("CDATA is text, kept as written: no markup and no references inside it", async () => {
    expect(await parse("<a><![CDATA[ <b>&amp;</b> &nbsp; ]]></a>")).toEqual({ a: " <b>&amp;</b> &nbsp; " });
  });

  it("the XML declaration, comments and processing instructions are dropped", async () => {
    expect(
      await parse('<?xml version="1.0"?>\n<!-- lead --><?app x?><lead><!-- c --><a>1</a></lead>\n<!-- end -->'),
    ).toEqual({
      lead: { a: "1" },
    });
  });

  it("namespace prefixes stay in names, and namespace declarations are attributes", async () => {
    expect(await parse('<cj:lead xmlns:cj="urn:cj"><cj:name>Ada</cj:name></cj:lead>')).toEqual({
      "cj:lead": { "@xmlns:cj": "urn:cj", "cj:name": "Ada" },
    });
  });

  it("line breaks are normalised to LF, as XML requires; a character reference keeps CR", async () => {
    expect(await parse("<a>one\r\ntwo&#13;</a>")).toEqual({ a: "one\ntwo\r" });
  });

  it("names are literal, even those of Object's methods; __proto__, constructor and prototype are refused", async () => {
    const tree = await parse(
      "<toString><valueOf>1</valueOf><hasOwnProperty>2</hasOwnProperty><valueOf>3</valueOf></toString>",
    );
    expect(tree).toEqual({ toString: { valueOf: ["1", "3"], hasOwnProperty: "2" } });
    for (const name of ["__proto__", "constructor", "prototype"]) {
      const error = await refusal(text(`<a><${name}>x</${name}></a>`), XML);
      expect([error.code, error.status], name).toEqual(["malformed_body", 400]);
    }
    expect(await parse('<a __proto__="x"/>')).toEqual({ a: { "@__proto__": "x" } });
  });
});

describe("docs/connections.md, Bodies: XML without DTDs or entities, refused before parsing (D-282)", () => {
  const refused = async (body: string) => {
    const error = await refusal(text(body), XML);
    expect([error.code, error.status]).toEqual(["xml_dtd_refused", 400]);
  };

  it("billion laughs", async () => {
    const entities = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`);
    await refused(`<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">${entities.join("")}]><lolz>&lol9;</lolz>`);
  });

  it('an external entity (SYSTEM "file:///etc/passwd")', async () => {
    await refused('<?xml version="1.0"?><!DOCTYPE lead [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><lead>&xxe;</lead>');
  });

  it("parameter entities and an external DTD", async () => {
    await refused('<!DOCTYPE lead [<!ENTITY % dtd SYSTEM "http://127.0.0.1:9/evil.dtd"> %dtd;]><lead/>');
    await refused('<!DOCTYPE lead SYSTEM "http://127.0.0.1:9/lead.dtd"><lead/>');
    await refused('<!DOCTYPE lead PUBLIC "-//X//DTD X//EN" "lead.dtd"><lead/>');
  });

  it("any DOCTYPE, even an empty one, and any markup declaration anywhere", async () => {
    await refused("<!DOCTYPE lead><lead/>");
    await refused("<!doctype lead><lead/>");
    await refused("<lead><!ENTITY x 'y'></lead>");
    await refused("<lead><!ELEMENT lead ANY></lead>");
  });

  it("a reference to an entity other than XML's five (HTML's &nbsp; included)", async () => {
    await refused("<lead>&nbsp;</lead>");
    await refused("<lead>&xxe;</lead>");
    await refused('<lead name="&xxe;"/>');
  });

  it("what only looks like one inside a comment or CDATA is text, and taken", async () => {
    expect(await parse("<a><!-- <!DOCTYPE x> &xxe; --><![CDATA[<!DOCTYPE html> &nbsp;]]></a>")).toEqual({
      a: "<!DOCTYPE html> &nbsp;",
    });
  });

  it.each([
    ["a bare &", "<a>AT&T</a>"],
    ["a bare & in an attribute", '<a b="AT&T"/>'],
    ["a reference to a character XML does not allow", "<a>&#0;</a>"],
    ["a reference to a surrogate", "<a>&#xD800;</a>"],
    ["a reference past Unicode", "<a>&#x110000;</a>"],
    ["an unclosed comment", "<a><!-- </a>"],
    ["an unclosed CDATA section", "<a><![CDATA[ </a>"],
  ])("%s is malformed (400)", async (_what, body) => {
    const error = await refusal(text(body), XML);
    expect([error.code, error.status]).toEqual(["malformed_body", 400]);
  });
});

describe("docs/connections.md, Bodies: XML limits (D-283)", () => {
  const nested = (depth: number, leaf = "x") => `${"<e>".repeat(depth)}${leaf}${"</e>".repeat(depth)}`;

  it("nests 64 levels and refuses 65 with 400 too_deep, as JSON", async () => {
    expect(await parse(nested(64))).toBeTypeOf("object");
    const error = await refusal(text(nested(65)), XML);
    expect([error.code, error.status, error.details]).toEqual(["too_deep", 400, { maxDepth: 64 }]);
    // 100,000 levels: refused by the prescan, before the parser builds anything.
    expect((await refusal(text(nested(100_000)), XML)).code).toBe("too_deep");
  });

  it("the depth is the tree's: an array of repeated elements is a level", async () => {
    // {e: {e: … {f: ["1", "2"]}}}: the wrapper, an object per element with children, then the array.
    expect(await parse(nested(62, "<f>1</f><f>2</f>"))).toBeTypeOf("object");
    // 64 elements deep, as many as 64 levels take, but the array makes 65.
    expect((await refusal(text(nested(63, "<f>1</f><f>2</f>")), XML)).code).toBe("too_deep");
  });

  it("takes 1,000 elements and attributes and refuses 1,001 with 413 too_many_fields", async () => {
    const elements = (count: number) => `<r a="1">${"<e/>".repeat(count - 2)}</r>`;
    expect(((await parse(elements(1_000))) as { r: { e: string[] } }).r.e).toHaveLength(998);
    const error = await refusal(text(elements(1_001)), XML);
    expect([error.code, error.status]).toEqual(["too_many_fields", 413]);
    const attributes = (count: number) =>
      `<r ${Array.from({ length: count - 1 }, (_, i) => `a${i}="${i}"`).join(" ")}/>`;
    expect(Object.keys(((await parse(attributes(1_000))) as { r: object }).r)).toHaveLength(999);
    expect((await refusal(text(attributes(1_001)), XML)).code).toBe("too_many_fields");
  });
});

describe("docs/connections.md, Bodies: malformed XML (D-284)", () => {
  it.each([
    ["empty", ""],
    ["not XML", "name=Ada"],
    ["two roots", "<a>1</a><b>2</b>"],
    ["two empty roots", "<a/><b/>"],
    ["text after the root", "<a/>x"],
    ["a reference after the root", "<a/>&amp;"],
    ["a <! that begins nothing", "<a><!-x></a>"],
    ["text beside the root", "x<a/>"],
    ["an unclosed element", "<a><b></a>"],
    ["an attribute repeated", '<a b="1" b="2"/>'],
    ["an attribute without a value", "<a b>x</a>"],
    ["a tag never closed", '<a b="1'],
  ])("%s is refused with 400 malformed_body", async (_what, body) => {
    const error = await refusal(text(body), XML);
    expect([error.code, error.status]).toEqual(["malformed_body", 400]);
  });

  it("a document cut short anywhere is refused, never half a tree", async () => {
    const body = '<?xml version="1.0"?><lead id="1"><name>Ada</name><!-- c --><note><![CDATA[x]]></note></lead>';
    for (let length = 0; length < body.length; length++) {
      expect((await refusal(text(body.slice(0, length)), XML)).code, `cut at ${length}`).toBe("malformed_body");
    }
    expect(await parse(body)).toEqual({ lead: { "@id": "1", name: "Ada", note: "x" } });
  });
});
