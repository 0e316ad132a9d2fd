// JsonReader and the unknown-key check: a key outside the known ones is an error naming the document and its
// dotted path, with the known key it misspells (at most two edits away) or else the list of known keys; values
// are looked up by dotted path, type- and range-checked.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"

using namespace ecosim;
using Catch::Matchers::Contains;

namespace {

const std::vector<std::string_view> kSeqKeys = {"seq_len", "embed_dim", "layers"};

template <class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("an unknown key is suggested the known key it misspells, within two edits") {
  CHECK(unknown_key_problem("seqlen", kSeqKeys) == "unknown key (did you mean 'seq_len'?)");        // deletion
  CHECK(unknown_key_problem("seq__len", kSeqKeys) == "unknown key (did you mean 'seq_len'?)");      // insertion
  CHECK(unknown_key_problem("sqe_len", kSeqKeys) == "unknown key (did you mean 'seq_len'?)");       // swap
  CHECK(unknown_key_problem("embed_dims", kSeqKeys) == "unknown key (did you mean 'embed_dim'?)");  // insertion
  CHECK(unknown_key_problem("lyaers", kSeqKeys) == "unknown key (did you mean 'layers'?)");         // swap
  CHECK(unknown_key_problem("seq_lens", kSeqKeys, "unknown key for x") ==
        "unknown key for x (did you mean 'seq_len'?)");
  // Three edits, or a key no longer than its edits, is no misspelling: the known keys are listed instead.
  CHECK(unknown_key_problem("num_layers", kSeqKeys) == "unknown key (known: seq_len, embed_dim, layers)");
  CHECK(unknown_key_problem("sq", std::vector<std::string_view>{"seq"}) == "unknown key (did you mean 'seq'?)");
  CHECK(unknown_key_problem("x", std::vector<std::string_view>{"n"}) == "unknown key (known: n)");
  CHECK(unknown_key_problem("", kSeqKeys) == "unknown key (known: seq_len, embed_dim, layers)");
  // A hostile key of a megabyte is not compared (its distance would cost its square), only refused.
  CHECK(unknown_key_problem(std::string(1 << 20, 'a'), kSeqKeys) == "unknown key (known: seq_len, embed_dim, layers)");
}

TEST_CASE("reject_unknown_keys names the document, the dotted path and the key") {
  const nlohmann::json doc = parse_json(R"({"model": {"seq_len": 4, "seqlen": 8}, "list": [1]})", "zoo.json");
  CHECK_NOTHROW(reject_unknown_keys(doc, std::vector<std::string_view>{"model", "list"}, "zoo.json"));
  CHECK(message_of([&] { reject_unknown_keys(doc["model"], kSeqKeys, "zoo.json", "model"); }) ==
        "zoo.json: model.seqlen: unknown key (did you mean 'seq_len'?)");
  CHECK(message_of([&] { reject_unknown_keys(doc, std::vector<std::string_view>{"model"}, "zoo.json"); }) ==
        "zoo.json: list: unknown key (known: model)");
  CHECK_NOTHROW(reject_unknown_keys(doc["list"], kSeqKeys, "zoo.json", "list"));  // not an object: no keys
  CHECK(child_path("", "a") == "a");
  CHECK(child_path("a.b", "c") == "a.b.c");
}

TEST_CASE("JsonReader: dotted paths, types, ranges and exact keys") {
  const nlohmann::json doc =
      parse_json(R"({"array": {"rows": 16, "clock": 1.5, "on": true, "name": "x", "list": []}})", "c.json");
  const JsonReader r(doc, "c.json");
  CHECK(r.count("array.rows", {1, 64, " rows"}) == 16);
  CHECK(r.number("array.clock", {1, 2, " GHz"}) == 1.5);
  CHECK(r.flag("array.on"));
  CHECK(r.text("array.name") == "x");
  CHECK(r.list("array.list").empty());
  CHECK(r.object("array").size() == 5);
  CHECK(message_of([&] {
          r.count("array.rows", {1, 8, " rows"});
        }) == "c.json: array.rows: 16 is out of range [1, 8] rows");
  CHECK(message_of([&] {
          r.count("array.clock", {1, 8, ""});
        }) == "c.json: array.clock: must be a non-negative integer");
  CHECK(message_of([&] { r.text("array.cols"); }) == "c.json: array.cols: missing");
  CHECK(message_of([&] { r.flag("array.name"); }) == "c.json: array.name: must be true or false");
  CHECK(r.has("array"));
  CHECK_NOTHROW(r.exact_keys({"array"}));
  CHECK(message_of([&] { r.exact_keys({"arrays"}); }) == "c.json: array: unknown key (did you mean 'arrays'?)");
  CHECK(message_of([&] { r.exact_keys({}, {"dram"}); }) == "c.json: array: unknown key (known: dram)");
  CHECK(message_of([&] { r.exact_keys({"array", "dram"}); }) == "c.json: dram: missing");
  const JsonReader inner(r.object("array"), "c.json: array");
  CHECK(message_of([&] {
          inner.exact_keys({"rows", "clock", "on", "name"});
        }) == "c.json: array: list: unknown key (known: rows, clock, on, name)");
}
