// Tests of the grader's XML reader (grader/src/xml.c, expat underneath). CTest's JUnit files
// carry text that student code printed, so besides reading what CTest writes, the reader must
// refuse anything that is not well-formed and stay bounded on hostile input: entity expansion,
// external entities, huge attributes, deep nesting, files cut short, NUL bytes.
#include <chrono>
#include <string>

#include "gltest.h"

extern "C" {
#include "xml.h"
}

namespace {

struct Xml {
  xml_node *root;
  char err[256];
  explicit Xml(const std::string &text) {
    root = xml_parse(text.data(), text.size(), err, sizeof err);
  }
  ~Xml() { xml_free(root); }
  Xml(const Xml &) = delete;
  Xml &operator=(const Xml &) = delete;
};

// The classic billion laughs: ten levels of ten references, 3 * 10^9 bytes once expanded.
std::string BillionLaughs() {
  std::string doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol0 \"lol\">\n";
  for (int i = 1; i <= 9; i++) {
    doc += " <!ENTITY lol" + std::to_string(i) + " \"";
    for (int j = 0; j < 10; j++) doc += "&lol" + std::to_string(i - 1) + ";";
    doc += "\">\n";
  }
  return doc + "]>\n<testsuite><testcase name=\"&lol9;\"/></testsuite>\n";
}

}  // namespace

TEST(GraderXml, ReadsElementsAttributesTextAndEntities) {
  Xml doc(
      "\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- a comment -->\n"
      "<!DOCTYPE suite [ <!ENTITY x \"y\"> ]>\n"
      "<suite name='a &amp; b' n=\"&#65;&#x42;&#x1F600;\">\n"
      "  <case name=\"one\"/>\n"
      "  <case name=\"two\">text &lt;1&gt; &quot;q&quot; &apos;a&apos; <![CDATA[<raw & kept>]]> end"
      "<!-- skipped --><?pi ignored?></case>\n"
      "</suite>\n");
  ASSERT_NE(doc.root, nullptr) << doc.err;
  EXPECT_STREQ(doc.root->name, "suite");
  EXPECT_STREQ(xml_attr_get(doc.root, "name"), "a & b");
  EXPECT_STREQ(xml_attr_get(doc.root, "n"), "AB\xF0\x9F\x98\x80");
  EXPECT_EQ(xml_attr_get(doc.root, "missing"), nullptr);
  ASSERT_EQ(doc.root->n_children, 2u);
  EXPECT_STREQ(xml_attr_get(doc.root->children[0], "name"), "one");
  EXPECT_STREQ(doc.root->children[0]->text, "") << "an empty element has empty text, not NULL";
  EXPECT_STREQ(doc.root->children[1]->text,
               "text <1> \"q\" 'a' <raw & kept> end");
  EXPECT_EQ(xml_child(doc.root, "case"), doc.root->children[0]);
  EXPECT_EQ(xml_child(doc.root, "nothing"), nullptr);
  EXPECT_STREQ(doc.root->text, "\n  \n  \n") << "only the text directly inside, not the children's";
}

TEST(GraderXml, RefusesUndefinedEntitiesAndInvalidCharacters) {
  // The old hand-written reader kept these as written; none is XML, and CTest writes none.
  for (const char *text : {"<a>AT&T</a>", "<a>&nbsp;</a>", "<a>&#xZZ;</a>", "<a>&#0;</a>",
                           "<a>& alone</a>", "<a>\x01</a>", "<a>caf\xFF</a>"}) {
    Xml doc(text);
    EXPECT_EQ(doc.root, nullptr) << text;
    EXPECT_NE(std::string(doc.err).find("line 1: "), std::string::npos) << text << " -> " << doc.err;
  }
}

TEST(GraderXml, RefusesBrokenDocumentsWithTheLine) {
  struct Case {
    const char *text;
    const char *message;
  } cases[] = {
      {"", "line 1: no element found"},
      {"   \n  ", "line 2: no element found"},
      {"<a>\n<b>\n</a>", "line 3: mismatched tag"},
      {"<a>\n<b>text", "line 2: no element found"},
      {"<a x=1/>", "not well-formed"},
      {"<a x/>", "not well-formed"},
      {"<a x=\"1/>", "unclosed token"},
      {"<a><!-- never closed</a>", "unclosed token"},
      {"<a/><b/>", "junk after document element"},
      {"<a><![CDATA[ no end </a>", "unclosed CDATA section"},
      {"<a", "unclosed token"},
      {"<a x=\"1\" x=\"2\"/>", "duplicate attribute"},
  };
  for (const Case &c : cases) {
    Xml doc(c.text);
    EXPECT_EQ(doc.root, nullptr) << c.text;
    EXPECT_NE(std::string(doc.err).find(c.message), std::string::npos)
        << c.text << " -> " << doc.err;
  }
}

TEST(GraderXml, RefusesEveryPrefixOfADocument) {
  // A JUnit file cut short (CTest killed while writing it) is never read as a shorter run,
  // wherever the cut falls: inside a tag, an attribute, an entity or a UTF-8 sequence.
  const std::string full =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite tests=\"2\">\n"
      "\t<testcase name=\"A.b\" status=\"run\"><system-out>caf\xC3\xA9 &amp; &lt;ok&gt;"
      "</system-out></testcase>\n\t<testcase name=\"C.d\" status=\"fail\"/>\n</testsuite>";
  Xml whole(full);
  ASSERT_NE(whole.root, nullptr) << whole.err;
  for (size_t n = 0; n < full.size(); n++) {
    Xml doc(full.substr(0, n));
    EXPECT_EQ(doc.root, nullptr) << "accepted the first " << n << " bytes";
  }
}

TEST(GraderXml, RefusesNulBytes) {
  for (const std::string &text : {std::string("<a>x\0y</a>", 10), std::string("<a x=\"\0\"/>", 10),
                                  std::string("<a/>\0", 5), std::string("\0<a/>", 5)}) {
    Xml doc(text);
    EXPECT_EQ(doc.root, nullptr) << "a NUL byte at " << text.find('\0');
  }
}

TEST(GraderXml, RefusesNestingDeeperThanItsLimit) {
  std::string deep;
  for (int i = 0; i < 300; i++) deep += "<a>";
  for (int i = 0; i < 300; i++) deep += "</a>";
  Xml doc(deep);
  EXPECT_EQ(doc.root, nullptr);
  EXPECT_NE(std::string(doc.err).find("nested more than 256 deep"), std::string::npos) << doc.err;
  std::string empty_at_the_limit;  // expat still reports the end of an empty element it stopped at
  for (int i = 0; i < GRADE_XML_MAX_DEPTH; i++) empty_at_the_limit += "<a>";
  empty_at_the_limit += "<b/>";
  Xml stopped(empty_at_the_limit);
  EXPECT_EQ(stopped.root, nullptr);
  std::string at_the_limit;
  for (int i = 0; i < GRADE_XML_MAX_DEPTH; i++) at_the_limit += "<a>";
  for (int i = 0; i < GRADE_XML_MAX_DEPTH; i++) at_the_limit += "</a>";
  Xml fits(at_the_limit);
  EXPECT_NE(fits.root, nullptr) << fits.err;
}

TEST(GraderXml, EntityExpansionIsBounded) {
  auto start = std::chrono::steady_clock::now();
  Xml laughs(BillionLaughs());
  EXPECT_EQ(laughs.root, nullptr);
  EXPECT_NE(std::string(laughs.err).find("amplification"), std::string::npos) << laughs.err;

  // Quadratic blowup: one entity of 64 KiB, referenced 20,000 times (1.3 GB).
  std::string quadratic = "<!DOCTYPE a [<!ENTITY big \"" + std::string(65536, 'x') + "\">]><a t=\"";
  for (int i = 0; i < 20000; i++) quadratic += "&big;";
  quadratic += "\"/>";
  Xml blowup(quadratic);
  EXPECT_EQ(blowup.root, nullptr);
  EXPECT_NE(std::string(blowup.err).find("amplification"), std::string::npos) << blowup.err;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0) << "refused early, not after expanding";
}

TEST(GraderXml, NeverLoadsAnExternalEntity) {
  // expat reads no file itself, and the reader gives it no handler that would: a reference to
  // an external entity is dropped.
  Xml general(
      "<!DOCTYPE a [<!ENTITY secret SYSTEM \"file:///etc/passwd\">]><a>[&secret;]</a>");
  ASSERT_NE(general.root, nullptr) << general.err;
  EXPECT_STREQ(general.root->text, "[]");
  Xml parameter(
      "<!DOCTYPE a [<!ENTITY % secret SYSTEM \"file:///etc/passwd\"> %secret;]><a>x</a>");
  ASSERT_NE(parameter.root, nullptr) << parameter.err;
  EXPECT_STREQ(parameter.root->text, "x");
  Xml dtd("<!DOCTYPE a SYSTEM \"file:///etc/passwd\"><a>x</a>");
  ASSERT_NE(dtd.root, nullptr) << dtd.err;
  EXPECT_STREQ(dtd.root->text, "x");
}

TEST(GraderXml, HugeAttributesAndManyElementsAreReadWhole) {
  // Far beyond any test name, and read whole: the reader has no fixed-size buffer to overflow.
  std::string name(16u << 20, 'n');
  Xml huge("<testsuite><testcase name=\"" + name + "\"/></testsuite>");
  ASSERT_NE(huge.root, nullptr) << huge.err;
  ASSERT_EQ(huge.root->n_children, 1u);
  EXPECT_EQ(std::string(xml_attr_get(huge.root->children[0], "name")), name);

  std::string many = "<testsuite>";
  for (int i = 0; i < 100000; i++) many += "<testcase name=\"T." + std::to_string(i) + "\"/>";
  many += "</testsuite>";
  Xml doc(many);
  ASSERT_NE(doc.root, nullptr) << doc.err;
  ASSERT_EQ(doc.root->n_children, 100000u);
  EXPECT_STREQ(xml_attr_get(doc.root->children[99999], "name"), "T.99999");
}
