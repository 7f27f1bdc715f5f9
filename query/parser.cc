#include "query/parser.h"

#include <algorithm>
#include <cctype>

#include "query/unsupported_syntax.h"

namespace dps {

namespace {

struct Token {
  // kField: `title:` before a word, phrase, prefix or group (text: the name).
  enum class Kind { kWord, kPhrase, kAnd, kOr, kNot, kMinus, kOpen, kClose, kField, kEnd };
  Kind kind;
  std::string_view text;  // a phrase: with its quotes
  size_t pos;
  std::string_view inner = {};  // a phrase: its words, between the quotes
  bool prefix = false;  // a word ending in '*' (IsPrefixStar): text holds the '*'
  uint32_t slop = 0;    // a phrase's ~N
};

bool IsQuerySpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool EndsWord(char c) { return IsQuerySpace(c) || c == '(' || c == ')'; }
// The bytes of the quote at s[i] (" is 1, the typographic “ ” „ 3).
size_t QuoteBytes(std::string_view s, size_t i) { return s[i] == '"' ? 1 : 3; }

Status SyntaxError(size_t pos, const std::string& what) {
  return Status::InvalidArgument("query syntax error at position " + std::to_string(pos) + ": " +
                                 what);
}

// A phrase at s[i] (a quote starting a word): its words up to the closing
// quote, which must end a word, or be followed by ~N (proximity: *slop).
// Sets *end past the closing quote and the ~N.
Result<std::string_view> LexPhrase(std::string_view s, size_t i, size_t* end, uint32_t* slop) {
  const size_t open = i + QuoteBytes(s, i);
  size_t j = open;
  while (j < s.size() && UnsupportedAt(s, j, false) != Unsupported::kPhrase) ++j;
  if (j >= s.size()) {
    return SyntaxError(i, "the phrase " + Excerpt(s.substr(i)) + " has no closing quote");
  }
  *end = j + QuoteBytes(s, j);
  *slop = 0;
  if (*end < s.size() && s[*end] == '~') {
    const size_t tilde = *end;
    size_t k = tilde + 1;
    uint64_t n = 0;
    while (k < s.size() && s[k] >= '0' && s[k] <= '9' && n <= kMaxPhraseSlop) n = n * 10 + static_cast<uint64_t>(s[k++] - '0');
    if (k == tilde + 1 || (k < s.size() && !EndsWord(s[k])) || n > kMaxPhraseSlop) {
      return SyntaxError(tilde, "proximity is a phrase then ~N, N a whole number from 0 to " +
                                    std::to_string(kMaxPhraseSlop) + " (" + Excerpt(s.substr(i, tilde - i)) + "~2)");
    }
    *slop = static_cast<uint32_t>(n);
    *end = k;
  }
  if (*end < s.size() && !EndsWord(s[*end])) {
    return SyntaxError(*end, "a phrase (" + Excerpt(s.substr(i, *end - i)) + ") must end before the next word");
  }
  return s.substr(open, j - open);
}

// The field name starting a word at s[i] (`title` of `title:kernel`), or
// empty: letters, digits and '_' from a letter or '_', then ':'.
std::string_view FieldNameAt(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
  if (j == i || j >= s.size() || s[j] != ':' || std::isdigit(static_cast<unsigned char>(s[i]))) return {};
  return s.substr(i, j - i);
}

// Splits the query into tokens, refusing other engines' syntax
// (unsupported_syntax.h) before the grammar sees it: such a query is
// reported there, whatever else is wrong with it.
Result<std::vector<Token>> Lex(std::string_view s) {
  std::vector<Token> out;
  out.reserve(8);
  size_t i = 0;
  while (i < s.size()) {
    if (IsQuerySpace(s[i])) {
      ++i;
    } else if (s[i] == '(' || s[i] == ')') {
      out.push_back({s[i] == '(' ? Token::Kind::kOpen : Token::Kind::kClose, s.substr(i, 1), i});
      ++i;
    } else if (s[i] == '-' && i + 1 < s.size() && !IsQuerySpace(s[i + 1]) &&
               (out.empty() || out.back().kind != Token::Kind::kWord ||
                out.back().pos + out.back().text.size() < i)) {
      out.push_back({Token::Kind::kMinus, s.substr(i, 1), i});  // "-term", not "a-b"
      ++i;
    } else if (const std::string_view name = out.empty() || out.back().kind != Token::Kind::kField
                                                 ? FieldNameAt(s, i)
                                                 : std::string_view();
               !name.empty()) {
      // `title:` must touch what it applies to: `title: kernel` would
      // otherwise search the next word everywhere.
      const size_t after = i + name.size() + 1;
      if (after >= s.size() || IsQuerySpace(s[after]) || s[after] == ')') {
        return SyntaxError(i, "the field '" + Excerpt(name) + ":' needs a word, a phrase or a group right after its ':'");
      }
      out.push_back({Token::Kind::kField, name, i});
      i = after;
    } else if (UnsupportedAt(s, i, true) == Unsupported::kPhrase) {
      size_t end = i;
      uint32_t slop = 0;
      DPS_ASSIGN_OR_RETURN(std::string_view words, LexPhrase(s, i, &end, &slop));
      out.push_back({Token::Kind::kPhrase, s.substr(i, end - i), i, words, false, slop});
      i = end;
    } else {
      size_t end = i;
      while (end < s.size() && !EndsWord(s[end])) ++end;
      const std::string_view w = s.substr(i, end - i);
      bool prefix = false;
      for (size_t j = i; j < end; ++j) {
        const Unsupported u = UnsupportedAt(s, j, j == i);
        if (u == Unsupported::kNone) continue;
        if (u != Unsupported::kWildcard) return SyntaxError(j, UnsupportedMessage(u, w, s.substr(j)));
        if (!IsPrefixStar(w, j - i)) return SyntaxError(j, WildcardMessage(w, j - i));
        prefix = true;
      }
      // A lone operator character would analyze to nothing and vanish:
      // `jury -` and `jury & grand` must not quietly mean `jury (grand)`.
      if (w.find_first_not_of('-') == std::string_view::npos) {
        return SyntaxError(i, "'-' must touch the term it negates (-term); this one negates nothing");
      }
      if (w.find_first_not_of('&') == std::string_view::npos) {
        return SyntaxError(i, "'&' is not an operator: use AND");
      }
      Token::Kind kind = Token::Kind::kWord;
      if (w == "AND") kind = Token::Kind::kAnd;
      if (w == "OR") kind = Token::Kind::kOr;
      if (w == "NOT") kind = Token::Kind::kNot;
      out.push_back({kind, w, i, {}, prefix});
      i = end;
    }
  }
  out.push_back({Token::Kind::kEnd, {}, s.size()});
  return out;
}

// What a parser given no field set knows: no field.
const FieldSet kNoFields;

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens, Analyzer* analyzer, const FieldSet* fields)
      : text_(text), tokens_(std::move(tokens)), analyzer_(analyzer), fields_(fields != nullptr ? fields : &kNoFields) {}

  Result<QueryNode> Parse() {
    if (Peek().kind == Token::Kind::kEnd) return Status::InvalidArgument("empty query");
    DPS_ASSIGN_OR_RETURN(QueryNode q, ParseOr());
    if (Peek().kind != Token::Kind::kEnd) return Error("unexpected '" + Excerpt(Peek().text) + "'");
    if (q.kind == QueryNode::Kind::kAnd && q.children.empty()) {
      return Status::InvalidArgument("the query has no searchable words");
    }
    if (OnlyNegations(q)) {
      return SyntaxError(tokens_[0].pos,
                         "a query of only negations matches nothing to subtract from ('" +
                             Excerpt(SpanFrom(0)) + "'); add a positive term");
    }
    // The checks above and in ParseOr / ParseUnary name the position; this
    // one guards BuildIterator's precondition should they miss a case.
    DPS_RETURN_IF_ERROR(ValidateQuery(q));
    return q;
  }

 private:
  const Token& Peek() const { return tokens_[pos_]; }
  Status Error(const std::string& what) const { return SyntaxError(Peek().pos, what); }

  // The query text from token `first` to the last token consumed.
  std::string_view SpanFrom(size_t first) const {
    const Token& last = tokens_[pos_ - 1];
    return text_.substr(tokens_[first].pos, last.pos + last.text.size() - tokens_[first].pos);
  }
  // An AND whose every child is negated: nothing to subtract from, unless
  // it is a group flattened into an AND with a positive term (`(-a) b`),
  // so the parser checks where no flattening can follow: the whole query,
  // an OR branch, a negated group.
  static bool OnlyNegations(const QueryNode& q) {
    return q.kind == QueryNode::Kind::kAnd && !q.children.empty() &&
           std::all_of(q.children.begin(), q.children.end(),
                       [](const QueryNode& c) { return c.negated; });
  }
  // `a OR -b` would match almost every document through its second branch.
  Status CheckOrBranch(const QueryNode& branch, size_t first) const {
    if (!OnlyNegations(branch)) return Status::OK();
    return SyntaxError(tokens_[first].pos,
                       std::string("an OR branch cannot be only ") +
                           (branch.children.size() == 1 ? "a negation" : "negations") + " ('" +
                           Excerpt(SpanFrom(first)) + "'); combine it with a positive term");
  }
  bool StartsUnary() const {
    const auto k = Peek().kind;
    return k == Token::Kind::kWord || k == Token::Kind::kPhrase || k == Token::Kind::kNot ||
           k == Token::Kind::kMinus || k == Token::Kind::kOpen || k == Token::Kind::kField;
  }

  Result<QueryNode> ParseOr() {
    const size_t first_token = pos_;
    DPS_ASSIGN_OR_RETURN(QueryNode first, ParseAnd());
    if (Peek().kind != Token::Kind::kOr) return first;  // no OR: nothing to combine
    DPS_RETURN_IF_ERROR(CheckOrBranch(first, first_token));
    std::vector<QueryNode> parts;
    parts.push_back(std::move(first));
    while (Peek().kind == Token::Kind::kOr) {
      ++pos_;
      if (!StartsUnary()) return Error("OR needs a term after it");
      const size_t branch_token = pos_;
      DPS_ASSIGN_OR_RETURN(QueryNode next, ParseAnd());
      DPS_RETURN_IF_ERROR(CheckOrBranch(next, branch_token));
      parts.push_back(std::move(next));
    }
    return Simplify(QueryNode::Kind::kOr, std::move(parts));
  }

  Result<QueryNode> ParseAnd() {
    std::vector<QueryNode> parts;
    parts.reserve(4);
    if (!StartsUnary()) return Error("expected a term");
    while (true) {
      DPS_ASSIGN_OR_RETURN(QueryNode u, ParseUnary());
      parts.push_back(std::move(u));
      if (Peek().kind == Token::Kind::kAnd) {
        ++pos_;
        if (!StartsUnary()) return Error("AND needs a term after it");
        continue;
      }
      if (!StartsUnary()) break;
    }
    return Simplify(QueryNode::Kind::kAnd, std::move(parts));
  }

  Result<QueryNode> ParseUnary() {
    if (Peek().kind == Token::Kind::kNot || Peek().kind == Token::Kind::kMinus) {
      const size_t not_token = pos_++;
      if (!StartsUnary() || Peek().kind == Token::Kind::kNot || Peek().kind == Token::Kind::kMinus) {
        return Error("NOT needs a term after it");
      }
      DPS_ASSIGN_OR_RETURN(QueryNode q, ParseUnary());
      if (OnlyNegations(q)) {  // -(-b): no positive term inside to evaluate
        return SyntaxError(tokens_[not_token].pos,
                           "a double negation ('" + Excerpt(SpanFrom(not_token)) +
                               "') is not supported; write the terms positively");
      }
      q.negated = !q.negated;
      return q;
    }
    if (Peek().kind == Token::Kind::kField) return ParseField();
    if (Peek().kind == Token::Kind::kOpen) {
      // Each group is a recursion: bound it, or deep nesting overflows the stack.
      if (groups_ == kMaxGroupDepth) {
        return Error("groups nested more than " + std::to_string(kMaxGroupDepth) + " deep");
      }
      ++pos_;
      ++groups_;
      DPS_ASSIGN_OR_RETURN(QueryNode q, ParseOr());
      --groups_;
      if (Peek().kind != Token::Kind::kClose) return Error("missing ')'");
      ++pos_;
      return q;
    }
    if (Peek().kind == Token::Kind::kPhrase) return ParsePhrase();
    // A word: its analyzed tokens, ANDed (none: an empty AND, dropped later).
    const Token& w = Peek();
    ++pos_;
    tokens_buf_.clear();
    if (w.prefix) return ParsePrefix(w);
    analyzer_->Analyze(w.text, &tokens_buf_, nullptr);
    KeyTokens();
    if (tokens_buf_.size() == 1) return QueryNode::Term(std::move(tokens_buf_[0]));
    std::vector<QueryNode> terms;
    terms.reserve(tokens_buf_.size());
    for (auto& t : tokens_buf_) terms.push_back(QueryNode::Term(std::move(t)));
    return Simplify(QueryNode::Kind::kAnd, std::move(terms));
  }

  // A quoted phrase: its analyzed words at consecutive positions; one word
  // is that term, none an error (a phrase of punctuation would vanish).
  Result<QueryNode> ParsePhrase() {
    const Token& p = Peek();
    ++pos_;
    tokens_buf_.clear();
    analyzer_->Analyze(p.inner, &tokens_buf_, nullptr);
    if (tokens_buf_.empty()) {
      return SyntaxError(p.pos, "the phrase " + Excerpt(p.text) + " has no searchable words");
    }
    if (tokens_buf_.size() > kMaxPhraseWords) {
      return SyntaxError(p.pos, "the phrase " + Excerpt(p.text) + " has " + std::to_string(tokens_buf_.size()) +
                                    " words, more than " + std::to_string(kMaxPhraseWords));
    }
    KeyTokens();
    if (tokens_buf_.size() == 1) return QueryNode::Term(std::move(tokens_buf_[0]));
    return QueryNode::Phrase(std::move(tokens_buf_), false, p.slop);
  }

  // `title:x`, `title:"a b"`, `title:netw*`, `title:(a OR -b)`: what
  // follows, its terms in the field (their keys, index/field_key.h).
  Result<QueryNode> ParseField() {
    const Token& f = Peek();
    ++pos_;
    if (!field_.empty()) {
      return SyntaxError(f.pos, "the field '" + Excerpt(f.text) + ":' is inside the field '" + field_ +
                                    ":'; a term belongs to one field");
    }
    if (fields_->ColumnOfField(f.text) < 0) {
      return SyntaxError(f.pos, "unknown field '" + Excerpt(f.text) + "': " +
                                    (fields_->empty() ? "the index has no fields (ingest --field NAME declares them)"
                                                      : "the index's fields are " + fields_->List()) +
                                    "; a bare word searches title and text");
    }
    const auto k = Peek().kind;
    if (k != Token::Kind::kWord && k != Token::Kind::kPhrase && k != Token::Kind::kOpen) {
      return SyntaxError(f.pos, "the field '" + Excerpt(f.text) +
                                    ":' applies to a word, a phrase or a group; put a NOT before the field");
    }
    field_ = std::string(f.text);
    Result<QueryNode> q = ParseUnary();
    field_.clear();
    return q;
  }

  // Inside a field, the analyzed tokens become the field's keys.
  void KeyTokens() {
    if (field_.empty()) return;
    for (auto& t : tokens_buf_) t = FieldKey(field_, t);
  }

  // `netw*`: the text before the '*' analyzed as a query word is, which
  // must give exactly one term (else the prefix would mean something the
  // user did not write: `foo-b*` is not one word).
  Result<QueryNode> ParsePrefix(const Token& w) {
    analyzer_->Analyze(w.text.substr(0, w.text.size() - 1), &tokens_buf_, nullptr);
    KeyTokens();
    if (tokens_buf_.size() == 1) return QueryNode::Prefix(std::move(tokens_buf_[0]));
    if (tokens_buf_.empty()) {
      return SyntaxError(w.pos, "the prefix query '" + Excerpt(w.text) + "' has no searchable characters");
    }
    std::string parts;
    for (const auto& t : tokens_buf_) parts += (parts.empty() ? "" : ", ") + t;
    return SyntaxError(w.pos, "a prefix query must be one word after analysis: '" + Excerpt(w.text) +
                                  "' is " + std::to_string(tokens_buf_.size()) + " (" + Excerpt(parts) + ")");
  }

  // Flattens nested nodes of the same kind, drops empty ANDs (words without
  // tokens, such as punctuation), and unwraps single children.
  static QueryNode Simplify(QueryNode::Kind kind, std::vector<QueryNode> parts) {
    if (parts.size() == 1 && parts[0].kind != kind && !parts[0].negated &&
        !(parts[0].kind == QueryNode::Kind::kAnd && parts[0].children.empty())) {
      return std::move(parts[0]);  // the common "one word" case, without a new node
    }
    QueryNode out;
    out.kind = kind;
    out.children.reserve(parts.size());
    for (auto& p : parts) {
      if (p.kind == QueryNode::Kind::kAnd && p.children.empty()) continue;
      if (p.kind == kind && !p.negated) {
        for (auto& c : p.children) out.children.push_back(std::move(c));
      } else {
        out.children.push_back(std::move(p));
      }
    }
    if (out.children.size() == 1 && !out.children[0].negated) return std::move(out.children[0]);
    if (out.children.empty()) out.kind = QueryNode::Kind::kAnd;
    return out;
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  Analyzer* analyzer_;
  const FieldSet* fields_;
  std::string field_;  // the field the terms being parsed belong to, or empty
  size_t pos_ = 0;
  size_t groups_ = 0;  // the groups open around pos_
  std::vector<std::string> tokens_buf_;
};

// True when the grammar would read `text` as words only: no parenthesis,
// no operator word, no '-' starting a word, nothing the lexer refuses.
// One pass, no allocation: it runs on every query.
bool IsPlainWordList(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == ')') return false;
    const bool word_start = i == 0 || IsQuerySpace(text[i - 1]);
    if (UnsupportedAt(text, i, word_start) != Unsupported::kNone) return false;
    if (!word_start) continue;
    if (c == '-' || c == '&') return false;  // an operator, or a lone '&' the lexer refuses
    // An operator is a whole word: AND, OR or NOT followed by a space or the end.
    for (std::string_view op : {"AND", "OR", "NOT"}) {
      if (text.substr(i, op.size()) == op &&
          (i + op.size() == text.size() || IsQuerySpace(text[i + op.size()]))) {
        return false;
      }
    }
  }
  return true;
}

// A plain word list (most queries) means the AND of its words' tokens, as
// the grammar would build it, without lexing and recursive descent.
Result<QueryNode> ParseWordList(std::string_view text, Analyzer* analyzer) {
  thread_local std::vector<std::string> tokens;
  tokens.clear();
  bool any_word = false;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsQuerySpace(text[i])) ++i;
    size_t j = i;
    while (j < text.size() && !IsQuerySpace(text[j])) ++j;
    if (j > i) {
      any_word = true;
      analyzer->Analyze(text.substr(i, j - i), &tokens, nullptr);
    }
    i = j;
  }
  if (tokens.empty()) {
    return Status::InvalidArgument(any_word ? "the query has no searchable words" : "empty query");
  }
  if (tokens.size() == 1) return QueryNode::Term(std::move(tokens[0]));
  QueryNode root;
  root.kind = QueryNode::Kind::kAnd;
  root.children.reserve(tokens.size());
  for (auto& t : tokens) root.children.push_back(QueryNode::Term(std::move(t)));
  return root;
}

}  // namespace

Result<QueryNode> ParseQuery(std::string_view text, Analyzer* analyzer, const FieldSet* fields) {
  if (IsPlainWordList(text)) return ParseWordList(text, analyzer);
  return ParseQueryByGrammar(text, analyzer, fields);
}

Result<QueryNode> ParseQueryByGrammar(std::string_view text, Analyzer* analyzer, const FieldSet* fields) {
  DPS_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lex(text));
  return Parser(text, std::move(tokens), analyzer, fields).Parse();
}

}  // namespace dps
