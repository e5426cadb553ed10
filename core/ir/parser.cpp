#include "core/ir/parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/util/text_file.h"

namespace marvel::ir {

namespace {

constexpr std::size_t kMaxDiagnostics = 25;
constexpr const char* kTooMany = "too many errors, stopping";

enum class Tok {
    Ident,
    Int,
    Float,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Semicolon,
    Comma,
    Assign,
    PlusAssign,
    OtherAssign, // -= *= /=: recognised only to explain that they are not supported
    PlusPlus,
    Plus,
    Minus,
    Star,
    Slash,
    Less,
    LessEq,
    Greater,
    GreaterEq,
    EqualEq,
    NotEq,
    AndAnd,
    OrOr,
    Not,
    End
};

struct Token
{
    Tok kind = Tok::End;
    std::string_view text;
    SourceLoc loc;
    std::size_t offset = 0; ///< byte offset of the first character
};

std::string describe(const Token& t)
{
    if (t.kind == Tok::End) return "end of file";
    return "'" + std::string(t.text) + "'";
}

/// Collapses whitespace runs (and drops comments) so echoed source text is on one line.
std::string normalise(std::string_view text)
{
    std::string out;
    bool space = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n')
                ++i;
            space = true;
            continue;
        }
        if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            auto close = text.find("*/", i + 2);
            i = close == std::string_view::npos ? text.size() : close + 1;
            space = true;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
    }
    return out;
}

/// Thrown to abandon the current statement/loop header; the caller resynchronises.
struct SyntaxError
{ };
/// Thrown to stop parsing altogether (nesting limit, too many errors, broken encoding).
struct Fatal
{ };

class Lexer
{
public:
    Lexer(std::string_view src, std::vector<Diagnostic>& diags, const std::string& file)
        : m_src(src)
        , m_diags(diags)
        , m_file(file)
    { }

    /// Tokenises the whole input. Returns false when the input is not text at all (bad UTF-8, NUL bytes),
    /// in which case one diagnostic explains it and no tokens are worth parsing.
    bool run(std::vector<Token>& out)
    {
        if (!checkEncoding()) return false;
        while (true) {
            skipSpaceAndComments();
            Token t;
            t.loc = {m_line, column()};
            t.offset = m_pos;
            if (m_pos >= m_src.size()) {
                t.kind = Tok::End;
                out.push_back(t);
                return true;
            }
            if (!lexOne(t)) continue;
            t.text = m_src.substr(t.offset, m_pos - t.offset);
            out.push_back(t);
        }
    }

private:
    int column() const { return int(m_pos - m_lineStart) + 1; }

    void error(SourceLoc loc, std::string message)
    {
        m_diags.push_back({m_file, loc, {}, std::move(message)});
        if (m_diags.size() >= kMaxDiagnostics) {
            m_diags.push_back({m_file, loc, {}, kTooMany});
            throw Fatal{};
        }
    }

    bool checkEncoding()
    {
        // The same check as the app's editor makes before opening a file (core/util/text_file.h).
        const std::optional<Diagnostic> notText = notTextDiagnostic(m_src, m_file);
        if (notText) error(notText->loc, notText->message);
        return !notText;
    }

    void newline()
    {
        ++m_line;
        m_lineStart = m_pos + 1;
    }

    void skipSpaceAndComments()
    {
        while (m_pos < m_src.size()) {
            char c = m_src[m_pos];
            if (c == '\n') {
                newline();
                ++m_pos;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++m_pos;
            } else if (c == '/' && m_pos + 1 < m_src.size() && m_src[m_pos + 1] == '/') {
                while (m_pos < m_src.size() && m_src[m_pos] != '\n')
                    ++m_pos;
            } else if (c == '/' && m_pos + 1 < m_src.size() && m_src[m_pos + 1] == '*') {
                const SourceLoc start{m_line, column()};
                m_pos += 2;
                bool closed = false;
                while (m_pos < m_src.size()) {
                    if (m_src[m_pos] == '*' && m_pos + 1 < m_src.size() && m_src[m_pos + 1] == '/') {
                        m_pos += 2;
                        closed = true;
                        break;
                    }
                    if (m_src[m_pos] == '\n') newline();
                    ++m_pos;
                }
                if (!closed) error(start, "unterminated comment: '/*' has no matching '*/'");
            } else {
                return;
            }
        }
    }

    static bool identStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
    static bool digit(char c) { return c >= '0' && c <= '9'; }

    bool lookingAt(char c, std::size_t ahead = 0) const
    {
        return m_pos + ahead < m_src.size() && m_src[m_pos + ahead] == c;
    }

    /// Lexes one token into `t`; returns false (after a diagnostic) for a character that is not part of
    /// the language.
    bool lexOne(Token& t)
    {
        const char c = m_src[m_pos];
        if (identStart(c)) {
            while (m_pos < m_src.size() && (identStart(m_src[m_pos]) || digit(m_src[m_pos])))
                ++m_pos;
            t.kind = Tok::Ident;
            return true;
        }
        if (digit(c) || (c == '.' && m_pos + 1 < m_src.size() && digit(m_src[m_pos + 1]))) {
            t.kind = Tok::Int;
            while (m_pos < m_src.size() && digit(m_src[m_pos]))
                ++m_pos;
            if (lookingAt('.')) {
                t.kind = Tok::Float;
                ++m_pos;
                while (m_pos < m_src.size() && digit(m_src[m_pos]))
                    ++m_pos;
            }
            if (lookingAt('e') || lookingAt('E')) {
                std::size_t k = 1;
                if (lookingAt('+', k) || lookingAt('-', k)) ++k;
                if (m_pos + k < m_src.size() && digit(m_src[m_pos + k])) {
                    t.kind = Tok::Float;
                    m_pos += k;
                    while (m_pos < m_src.size() && digit(m_src[m_pos]))
                        ++m_pos;
                }
            }
            if (m_pos < m_src.size() && (identStart(m_src[m_pos]) || m_src[m_pos] == '.')) {
                while (m_pos < m_src.size()
                    && (identStart(m_src[m_pos]) || digit(m_src[m_pos]) || m_src[m_pos] == '.'))
                    ++m_pos;
                error(
                    t.loc, "invalid number '" + std::string(m_src.substr(t.offset, m_pos - t.offset)) + "'");
                return false;
            }
            return true;
        }
        auto two = [&](char next, Tok ifTwo, Tok ifOne) {
            if (lookingAt(next, 1)) {
                m_pos += 2;
                t.kind = ifTwo;
            } else {
                m_pos += 1;
                t.kind = ifOne;
            }
            return true;
        };
        switch (c) {
        case '(':
            ++m_pos;
            t.kind = Tok::LParen;
            return true;
        case ')':
            ++m_pos;
            t.kind = Tok::RParen;
            return true;
        case '{':
            ++m_pos;
            t.kind = Tok::LBrace;
            return true;
        case '}':
            ++m_pos;
            t.kind = Tok::RBrace;
            return true;
        case '[':
            ++m_pos;
            t.kind = Tok::LBracket;
            return true;
        case ']':
            ++m_pos;
            t.kind = Tok::RBracket;
            return true;
        case ';':
            ++m_pos;
            t.kind = Tok::Semicolon;
            return true;
        case ',':
            ++m_pos;
            t.kind = Tok::Comma;
            return true;
        case '+':
            if (lookingAt('+', 1)) {
                m_pos += 2;
                t.kind = Tok::PlusPlus;
                return true;
            }
            return two('=', Tok::PlusAssign, Tok::Plus);
        case '-':
            return two('=', Tok::OtherAssign, Tok::Minus);
        case '*':
            return two('=', Tok::OtherAssign, Tok::Star);
        case '/':
            return two('=', Tok::OtherAssign, Tok::Slash);
        case '<':
            return two('=', Tok::LessEq, Tok::Less);
        case '>':
            return two('=', Tok::GreaterEq, Tok::Greater);
        case '=':
            return two('=', Tok::EqualEq, Tok::Assign);
        case '!':
            return two('=', Tok::NotEq, Tok::Not);
        case '&':
            if (lookingAt('&', 1)) {
                m_pos += 2;
                t.kind = Tok::AndAnd;
                return true;
            }
            break;
        case '|':
            if (lookingAt('|', 1)) {
                m_pos += 2;
                t.kind = Tok::OrOr;
                return true;
            }
            break;
        default:
            break;
        }
        const auto uc = static_cast<unsigned char>(c);
        std::string what;
        std::size_t length = 1;
        if (uc >= 0x80) {
            // A valid multi-byte UTF-8 character (encoding was checked): name its code point.
            length = uc >= 0xF0 ? 4 : uc >= 0xE0 ? 3 : 2;
            std::uint32_t cp = uc & (length == 4 ? 0x07 : length == 3 ? 0x0F : 0x1F);
            for (std::size_t k = 1; k < length; ++k)
                cp = (cp << 6) | (static_cast<unsigned char>(m_src[m_pos + k]) & 0x3F);
            char buf[16];
            std::snprintf(buf, sizeof buf, "U+%04X", unsigned(cp));
            what = buf;
        } else if (uc < 0x20 || uc == 0x7F) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "0x%02X", unsigned(uc));
            what = std::string("control character ") + buf;
        } else {
            what = std::string("'") + c + "'";
        }
        error(t.loc, "unexpected character " + what);
        m_pos += length;
        return false;
    }

    std::string_view m_src;
    std::vector<Diagnostic>& m_diags;
    const std::string& m_file;
    std::size_t m_pos = 0;
    std::size_t m_lineStart = 0;
    int m_line = 1;
};

bool checkedAdd(std::int64_t a, std::int64_t b, std::int64_t& out)
{
    return !__builtin_add_overflow(a, b, &out);
}
bool checkedMul(std::int64_t a, std::int64_t b, std::int64_t& out)
{
    return !__builtin_mul_overflow(a, b, &out);
}

/// Affine arithmetic that reports overflow instead of wrapping.
bool addScaled(AffineExpr& into, const AffineExpr& other, std::int64_t scale)
{
    std::int64_t c = 0;
    if (!checkedMul(other.constant, scale, c) || !checkedAdd(into.constant, c, into.constant)) return false;
    for (const auto& [name, coefficient] : other.terms) {
        std::int64_t add = 0;
        if (!checkedMul(coefficient, scale, add)) return false;
        auto it = std::lower_bound(into.terms.begin(), into.terms.end(), name,
            [](const auto& term, const std::string& n) { return term.first < n; });
        if (it != into.terms.end() && it->first == name) {
            if (!checkedAdd(it->second, add, it->second)) return false;
            if (it->second == 0) into.terms.erase(it);
        } else if (add != 0) {
            into.terms.insert(it, {name, add});
        }
    }
    return true;
}

const char* const kKeywords[] = {"operator", "for", "if", "else", "int", "max", "min"};
bool isKeyword(std::string_view s)
{
    return std::any_of(std::begin(kKeywords), std::end(kKeywords), [&](const char* k) { return s == k; });
}

/// Where an affine expression is being read decides which names it may use.
enum class AffineContext { Subscript, Bound, Condition };

/// Result of the typed expression ladder used for subscripts, bounds and conditions.
struct Typed
{
    bool isCondition = false;
    AffineExpr affine;
};

class Parser
{
public:
    Parser(std::string_view src, const std::string& file)
        : m_src(src)
        , m_file(file)
    { }

    Operator run()
    {
        Operator op;
        op.file = m_file;
        try {
            Lexer lexer(m_src, m_diags, m_file);
            if (lexer.run(m_tokens)) parseFile(op);
        } catch (const Fatal&) { }
        if (!m_diags.empty()) {
            // Lexical problems are found before syntax ones; show everything in reading order, keeping a
            // final "too many errors" note last.
            auto end = m_diags.end();
            if (m_diags.back().message == kTooMany) --end;
            std::stable_sort(m_diags.begin(), end, [](const Diagnostic& a, const Diagnostic& b) {
                return std::pair(a.loc.line, a.loc.column) < std::pair(b.loc.line, b.loc.column);
            });
            throw InputError(m_diags);
        }
        return op;
    }

private:
    // ---- diagnostics ------------------------------------------------------------------------------
    void report(SourceLoc loc, std::string message)
    {
        m_diags.push_back({m_file, loc, {}, std::move(message)});
        if (m_diags.size() >= kMaxDiagnostics) {
            m_diags.push_back({m_file, loc, {}, kTooMany});
            throw Fatal{};
        }
    }
    [[noreturn]] void fail(SourceLoc loc, std::string message)
    {
        report(loc, std::move(message));
        throw SyntaxError{};
    }
    [[noreturn]] void failHere(const std::string& expected)
    {
        fail(peek().loc, "expected " + expected + ", found " + describe(peek()));
    }

    /// Counts one more statement, loop or reference and stops once the operator is larger than the
    /// checker is meant for (see kMaxStatements in parser.h).
    void count(int& counter, int limit, const char* what, SourceLoc loc)
    {
        if (++counter > limit)
            fatal(loc,
                std::string("the operator is too large: more than ") + std::to_string(limit) + " " + what);
    }

    [[noreturn]] void tooDeep(SourceLoc loc)
    {
        fatal(loc,
            "nesting is too deep (more than " + std::to_string(kMaxNestingDepth)
                + " levels of blocks, loops, parentheses or operators)");
    }

    /// Bounds recursion: every recursive production passes through one of these.
    struct DepthGuard
    {
        Parser& parser;
        explicit DepthGuard(Parser& p, SourceLoc loc)
            : parser(p)
        {
            if (++parser.m_depth > kMaxNestingDepth) parser.tooDeep(loc);
        }
        ~DepthGuard() { --parser.m_depth; }
        DepthGuard(const DepthGuard&) = delete;
        DepthGuard& operator=(const DepthGuard&) = delete;
    };

    /// A chain `a + b + c ...` is parsed by a loop but builds a left-deep Expr tree that every later
    /// walk (and the destructor) follows recursively, so each operator of a chain counts as one level
    /// of nesting too; without this a sum of a few hundred thousand terms overflows the stack.
    struct ChainDepth
    {
        Parser& parser;
        int levels = 0;
        explicit ChainDepth(Parser& p)
            : parser(p)
        { }
        void deeper(SourceLoc loc)
        {
            ++levels;
            if (++parser.m_depth > kMaxNestingDepth) parser.tooDeep(loc);
        }
        ~ChainDepth() { parser.m_depth -= levels; }
        ChainDepth(const ChainDepth&) = delete;
        ChainDepth& operator=(const ChainDepth&) = delete;
    };

    // ---- tokens -----------------------------------------------------------------------------------
    const Token& peek(std::size_t ahead = 0) const
    {
        return m_tokens[std::min(m_pos + ahead, m_tokens.size() - 1)];
    }
    bool at(Tok kind) const { return peek().kind == kind; }
    bool atWord(std::string_view word) const { return at(Tok::Ident) && peek().text == word; }
    const Token& advance()
    {
        const Token& t = m_tokens[m_pos];
        if (m_pos + 1 < m_tokens.size()) ++m_pos;
        return t;
    }
    bool accept(Tok kind)
    {
        if (!at(kind)) return false;
        advance();
        return true;
    }
    const Token& expect(Tok kind, const std::string& what)
    {
        if (!at(kind)) failHere(what);
        return advance();
    }
    /// The position just past a token (tokens never span lines).
    static SourceLoc endOf(const Token& t) { return {t.loc.line, t.loc.column + int(t.text.size())}; }
    std::string_view sourceBetween(const Token& first, const Token& last) const
    {
        return m_src.substr(first.offset, last.offset + last.text.size() - first.offset);
    }
    /// Skips to just after the next ';' or to the next '}' of the current block (skipping whole nested
    /// blocks), so one bad statement does not hide the problems after it.
    void synchronise()
    {
        int nesting = 0;
        while (!at(Tok::End)) {
            if (at(Tok::LBrace)) {
                ++nesting;
            } else if (at(Tok::RBrace)) {
                if (nesting == 0) return;
                if (--nesting == 0) {
                    advance();
                    return;
                }
            } else if (at(Tok::Semicolon) && nesting == 0) {
                advance();
                return;
            }
            advance();
        }
    }

    // ---- file structure ---------------------------------------------------------------------------
    void parseFile(Operator& op)
    {
        if (at(Tok::End))
            fatal(peek().loc, "empty file: expected 'operator NAME(SIZE = value, ...) { ... }'");
        if (!atWord("operator")) fatal(peek().loc, "expected 'operator', found " + describe(peek()));
        op.loc = advance().loc;
        try {
            const Token& name = expect(Tok::Ident, "the operator name");
            if (isKeyword(name.text))
                fail(name.loc, "'" + std::string(name.text) + "' is a keyword and cannot name the operator");
            op.name = std::string(name.text);
            expect(Tok::LParen, "'(' after the operator name");
            parseSizes(op);
        } catch (const SyntaxError&) {
            // The header is broken; look for the body so its problems are reported too.
            while (!at(Tok::End) && !at(Tok::LBrace))
                advance();
        }
        if (!at(Tok::LBrace))
            fatal(peek().loc, "expected '{' to open the operator body, found " + describe(peek()));
        const Token& open = advance();
        parseItems(op.body, open);
        if (!at(Tok::End))
            report(peek().loc, "unexpected " + describe(peek()) + " after the end of the operator");
    }

    [[noreturn]] void fatal(SourceLoc loc, std::string message)
    {
        m_diags.push_back({m_file, loc, {}, std::move(message)});
        throw Fatal{};
    }

    void parseSizes(Operator& op)
    {
        if (accept(Tok::RParen)) return;
        while (true) {
            const Token& name = expect(Tok::Ident, "a size name");
            const std::string n(name.text);
            if (isKeyword(n)) fail(name.loc, "'" + n + "' is a keyword and cannot name a size");
            expect(Tok::Assign, "'=' after size '" + n + "'");
            const bool negative = accept(Tok::Minus);
            const Token& value = peek();
            if (!at(Tok::Int)) failHere("an integer value for size '" + n + "'");
            advance();
            std::int64_t v = 0;
            const bool parsed = parseInteger(value, v);
            if (!parsed || v > kMaxExtent)
                report(value.loc,
                    "size '" + n + "' = " + std::string(value.text) + " is too large (at most "
                        + std::to_string(kMaxExtent) + ")");
            else if (negative || v == 0)
                report(value.loc, "size '" + n + "' must be a positive integer");
            // An invalid value is already reported; 1 keeps later bound checks from adding noise about it.
            if (!parsed || v > kMaxExtent || negative || v == 0) v = 1;
            auto previous = m_sizes.find(n);
            if (previous != m_sizes.end())
                report(name.loc,
                    "duplicate size '" + n + "' (first declared at " + where(previous->second.loc) + ")");
            else
                m_sizes[n] = SizeParam{n, v, name.loc};
            op.sizes.push_back(SizeParam{n, v, name.loc});
            if (accept(Tok::RParen)) return;
            expect(Tok::Comma, "',' or ')' in the size list");
        }
    }

    static std::string where(SourceLoc loc)
    {
        return std::to_string(loc.line) + ":" + std::to_string(loc.column);
    }

    static bool parseInteger(const Token& t, std::int64_t& out)
    {
        auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), out);
        return ec == std::errc() && ptr == t.text.data() + t.text.size();
    }

    /// Items up to the '}' matching `open` (consumed).
    void parseItems(std::vector<Node>& out, const Token& open)
    {
        DepthGuard guard(*this, open.loc);
        while (!at(Tok::RBrace)) {
            if (at(Tok::End))
                fatal(peek().loc,
                    "expected '}' to close the '{' opened at " + where(open.loc) + ", found end of file");
            try {
                parseItem(out);
            } catch (const SyntaxError&) {
                synchronise();
            }
        }
        advance();
    }

    void parseItem(std::vector<Node>& out)
    {
        DepthGuard guard(*this, peek().loc);
        if (atWord("for")) return parseFor(out);
        if (atWord("if")) return parseIf(out);
        if (atWord("else"))
            fail(peek().loc, "'else' is not supported (write a second 'if' with the opposite condition)");
        if (at(Tok::Ident) && peek(1).kind == Tok::LBracket) return parseStatement(out);
        if (at(Tok::LBrace))
            fail(peek().loc, "unexpected '{': a block must follow 'for (...)' or 'if (...)'");
        if (at(Tok::Ident) && (peek(1).kind == Tok::Assign || peek(1).kind == Tok::PlusAssign))
            fail(peek().loc,
                "'" + std::string(peek().text) + "' is assigned without subscripts: write "
                    + std::string(peek().text) + "[...]");
        failHere("a 'for' loop, an 'if' or a statement");
    }

    /// The body of a loop or `if`: a braced block or a single item.
    void parseBody(std::vector<Node>& body)
    {
        if (at(Tok::LBrace)) {
            const Token& open = advance();
            parseItems(body, open);
        } else {
            parseItem(body);
        }
    }

    void parseFor(std::vector<Node>& out)
    {
        count(m_loopCount, kMaxLoops, "loops", peek().loc);
        Node loop;
        loop.kind = Node::Kind::Loop;
        loop.loc = advance().loc;
        expect(Tok::LParen, "'(' after 'for'");
        if (atWord("int")) advance();
        const Token& iter = expect(Tok::Ident, "the loop iterator name");
        const std::string name(iter.text);
        if (isKeyword(name)) fail(iter.loc, "'" + name + "' is a keyword and cannot name a loop iterator");
        if (m_sizes.count(name)) fail(iter.loc, "loop iterator '" + name + "' has the name of a size");
        if (auto it = m_iterators.find(name); it != m_iterators.end())
            fail(iter.loc, "loop iterator '" + name + "' is already declared at " + where(it->second));
        loop.iterator = name;
        expect(Tok::Assign, "'=' after the loop iterator");
        const SourceLoc lowerLoc = peek().loc;
        loop.lower = parseAffine(AffineContext::Bound, name);
        if (!(loop.lower.isConstant() && loop.lower.constant == 0))
            report(lowerLoc,
                "loop '" + name + "' must start at 0 (found '" + loop.lower.toString()
                    + "'); normalise it by shifting the subscripts instead");
        loop.lower = AffineExpr{};
        expect(Tok::Semicolon, "';' after the loop start");
        const Token& condIter = expect(Tok::Ident, "the loop condition '" + name + " < BOUND'");
        if (condIter.text != name)
            fail(condIter.loc,
                "the loop condition must test '" + name + "', found '" + std::string(condIter.text) + "'");
        bool inclusive = false;
        if (at(Tok::LessEq))
            inclusive = true;
        else if (!at(Tok::Less))
            failHere("'<' or '<=' in the condition of loop '" + name + "'");
        advance();
        const SourceLoc boundLoc = peek().loc;
        loop.upper = parseAffine(AffineContext::Bound, name);
        if (inclusive && !checkedAdd(loop.upper.constant, 1, loop.upper.constant))
            fail(boundLoc, "integer overflow in the bound of loop '" + name + "'");
        expect(Tok::Semicolon, "';' after the loop condition");
        parseStep(name);
        loop.header = {loop.loc, endOf(expect(Tok::RParen, "')' after the loop increment"))};

        const std::int64_t extent = extentOf(loop.upper);
        if (extent <= 0)
            report(boundLoc,
                "loop '" + name + "' never runs: its bound '" + loop.upper.toString() + "' is at most 0");
        else if (extent > kMaxExtent)
            report(boundLoc,
                "loop '" + name + "' is too long (" + std::to_string(extent) + " iterations, at most "
                    + std::to_string(kMaxExtent) + ")");
        m_iterators[name] = iter.loc;
        m_scope.push_back({name, std::clamp<std::int64_t>(extent, 1, kMaxExtent)});
        try {
            parseBody(loop.body);
        } catch (...) {
            m_scope.pop_back();
            throw;
        }
        m_scope.pop_back();
        out.push_back(std::move(loop));
    }

    void parseStep(const std::string& name)
    {
        const Token& first = peek();
        const std::string message
            = "the loop increment must be '" + name + "++', '++" + name + "' or '" + name + " += 1'";
        if (accept(Tok::PlusPlus)) {
            if (!at(Tok::Ident) || peek().text != name) fail(first.loc, message);
            advance();
            return;
        }
        if (!at(Tok::Ident) || peek().text != name) fail(first.loc, message);
        advance();
        if (accept(Tok::PlusPlus)) return;
        if (accept(Tok::PlusAssign) && at(Tok::Int) && peek().text == "1") {
            advance();
            return;
        }
        fail(first.loc, message);
    }

    /// Largest trip count of a loop with this upper bound, outer iterators over their whole range.
    std::int64_t extentOf(const AffineExpr& upper) const
    {
        __int128 value = upper.constant;
        for (const auto& [name, coefficient] : upper.terms) {
            if (auto size = m_sizes.find(name); size != m_sizes.end()) {
                value += __int128(coefficient) * size->second.value;
            } else {
                for (const auto& [iterator, extent] : m_scope)
                    if (iterator == name && coefficient > 0) value += __int128(coefficient) * (extent - 1);
            }
        }
        return value > INT64_MAX ? INT64_MAX : value < INT64_MIN ? INT64_MIN : std::int64_t(value);
    }

    void parseIf(std::vector<Node>& out)
    {
        Node node;
        node.kind = Node::Kind::If;
        node.loc = advance().loc;
        expect(Tok::LParen, "'(' after 'if'");
        const Token& first = peek();
        const SourceLoc condLoc = first.loc;
        Typed cond = parseOr(AffineContext::Condition, {});
        if (!cond.isCondition) report(condLoc, "the condition of 'if' must be a comparison such as 'i < N'");
        node.condition = normalise(sourceBetween(first, m_tokens[m_pos - 1]));
        node.header = {node.loc, endOf(expect(Tok::RParen, "')' after the condition"))};
        parseBody(node.body);
        if (atWord("else"))
            fail(peek().loc, "'else' is not supported (write a second 'if' with the opposite condition)");
        out.push_back(std::move(node));
    }

    // ---- statements -------------------------------------------------------------------------------
    void parseStatement(std::vector<Node>& out)
    {
        const Token& first = peek();
        count(m_statementCount, kMaxStatements, "statements", first.loc);
        Node node;
        node.kind = Node::Kind::Statement;
        node.loc = first.loc;
        Statement& s = node.statement;
        s.loc = first.loc;
        s.target = parseRef();
        if (at(Tok::Assign)) {
            s.op = Statement::Op::Assign;
        } else if (at(Tok::PlusAssign)) {
            s.op = Statement::Op::AddAssign;
        } else if (at(Tok::OtherAssign)) {
            fail(peek().loc, "only '=' and '+=' assignments are supported, found " + describe(peek()));
        } else {
            failHere("'=' or '+=' after " + s.target.toString());
        }
        advance();
        s.value = parseValue();
        const Token& semicolon = expect(Tok::Semicolon, "';' at the end of the statement");
        s.text = normalise(sourceBetween(first, semicolon));
        s.range = {first.loc, endOf(semicolon)};
        node.header = s.range;
        out.push_back(std::move(node));
    }

    TensorRef parseRef()
    {
        const Token& name = expect(Tok::Ident, "a tensor name");
        const std::string n(name.text);
        TensorRef ref;
        ref.tensor = n;
        ref.loc = name.loc;
        if (isKeyword(n))
            report(name.loc, "'" + n + "' is a keyword and cannot name a tensor");
        else if (m_sizes.count(n))
            report(name.loc, "'" + n + "' is a size, not a tensor");
        else if (m_iterators.count(n))
            report(name.loc, "'" + n + "' is a loop iterator, not a tensor");
        if (!at(Tok::LBracket))
            fail(peek().loc,
                "expected '[' after tensor '" + n + "': tensors are used element-wise as " + n + "[...]");
        while (at(Tok::LBracket)) {
            count(m_subscriptCount, kMaxSubscripts, "tensor subscripts", peek().loc);
            advance();
            const Token& start = peek();
            ref.subscripts.push_back(parseAffine(AffineContext::Subscript, {}));
            ref.subscriptText.push_back(normalise(sourceBetween(start, m_tokens[m_pos - 1])));
            ref.subscriptRanges.push_back({start.loc, endOf(m_tokens[m_pos - 1])});
            ref.range = {name.loc, endOf(expect(Tok::RBracket, "']' after the subscript"))};
        }
        auto [it, inserted] = m_tensorRanks.try_emplace(n, std::make_pair(ref.subscripts.size(), name.loc));
        if (!inserted && it->second.first != ref.subscripts.size())
            report(name.loc,
                "tensor '" + n + "' has " + std::to_string(ref.subscripts.size()) + " subscripts here but "
                    + std::to_string(it->second.first) + " at " + where(it->second.second));
        return ref;
    }

    Expr parseValue()
    {
        Expr left = parseProduct();
        ChainDepth chain(*this);
        while (at(Tok::Plus) || at(Tok::Minus)) {
            chain.deeper(peek().loc);
            const Token& op = advance();
            Expr e;
            e.kind = op.kind == Tok::Plus ? Expr::Kind::Add : Expr::Kind::Sub;
            e.loc = op.loc;
            e.operands.push_back(std::move(left));
            e.operands.push_back(parseProduct());
            left = std::move(e);
        }
        return left;
    }

    Expr parseProduct()
    {
        Expr left = parseUnaryValue();
        ChainDepth chain(*this);
        while (at(Tok::Star) || at(Tok::Slash)) {
            chain.deeper(peek().loc);
            const Token& op = advance();
            Expr e;
            e.kind = op.kind == Tok::Star ? Expr::Kind::Mul : Expr::Kind::Div;
            e.loc = op.loc;
            e.operands.push_back(std::move(left));
            e.operands.push_back(parseUnaryValue());
            left = std::move(e);
        }
        return left;
    }

    Expr parseUnaryValue()
    {
        DepthGuard guard(*this, peek().loc);
        if (at(Tok::Minus)) {
            Expr e;
            e.kind = Expr::Kind::Neg;
            e.loc = advance().loc;
            e.operands.push_back(parseUnaryValue());
            return e;
        }
        const Token& t = peek();
        Expr e;
        e.loc = t.loc;
        if (at(Tok::Int) || at(Tok::Float)) {
            advance();
            e.kind = Expr::Kind::Number;
            const std::string text(t.text);
            char* end = nullptr;
            e.number = std::strtod(text.c_str(), &end);
            if (!std::isfinite(e.number)) report(t.loc, "number '" + text + "' is out of range");
            return e;
        }
        if (at(Tok::LParen)) {
            advance();
            Expr inner = parseValue();
            expect(Tok::RParen, "')'");
            return inner;
        }
        if (at(Tok::Ident) && (t.text == "max" || t.text == "min")) {
            advance();
            e.kind = t.text == "max" ? Expr::Kind::Max : Expr::Kind::Min;
            expect(Tok::LParen, "'(' after '" + std::string(t.text) + "'");
            e.operands.push_back(parseValue());
            expect(Tok::Comma, "',' between the two arguments of '" + std::string(t.text) + "'");
            e.operands.push_back(parseValue());
            expect(Tok::RParen, "')' after the arguments of '" + std::string(t.text) + "'");
            return e;
        }
        if (at(Tok::Ident) && peek(1).kind == Tok::LParen) {
            for (std::size_t f = 0; f < std::size(kFunctionNames); ++f) {
                if (t.text != kFunctionNames[f]) continue;
                advance();
                e.kind = Expr::Kind::Call;
                e.function = Function(f);
                expect(Tok::LParen, "'('");
                e.operands.push_back(parseValue());
                if (at(Tok::Comma)) fail(peek().loc, "'" + std::string(t.text) + "' takes one argument");
                expect(Tok::RParen, "')' after the argument of '" + std::string(t.text) + "'");
                return e;
            }
        }
        if (at(Tok::Ident) && peek(1).kind == Tok::LBracket) {
            e.kind = Expr::Kind::Ref;
            e.ref = parseRef();
            return e;
        }
        if (at(Tok::Ident) && peek(1).kind == Tok::LParen)
            fail(t.loc,
                "unknown function '" + std::string(t.text)
                    + "' (available: max, min, exp, sqrt, rsqrt, tanh, erf, sigmoid)");
        if (at(Tok::Ident)) {
            const std::string n(t.text);
            const char* kind = m_sizes.count(n) ? "size" : m_iterators.count(n) ? "loop iterator" : nullptr;
            if (kind)
                fail(t.loc,
                    std::string("the ") + kind + " '" + n
                        + "' cannot be used as a value: values are tensor elements T[...] and numbers");
            fail(t.loc, "unknown identifier '" + n + "' (tensors are used element-wise as " + n + "[...])");
        }
        failHere("a value (a number, a tensor element, max(...) or min(...))");
    }

    // ---- affine expressions and conditions --------------------------------------------------------
    AffineExpr parseAffine(AffineContext context, const std::string& ownIterator)
    {
        const SourceLoc loc = peek().loc;
        Typed t = parseSum(context, ownIterator);
        if (t.isCondition) fail(loc, "expected an affine expression, found a condition");
        return std::move(t.affine);
    }

    Typed parseOr(AffineContext context, const std::string& own)
    {
        Typed left = parseAnd(context, own);
        while (at(Tok::OrOr)) {
            const Token& op = advance();
            Typed right = parseAnd(context, own);
            requireConditions(left, right, op);
            left.isCondition = true;
        }
        return left;
    }

    Typed parseAnd(AffineContext context, const std::string& own)
    {
        Typed left = parseComparison(context, own);
        while (at(Tok::AndAnd)) {
            const Token& op = advance();
            Typed right = parseComparison(context, own);
            requireConditions(left, right, op);
            left.isCondition = true;
        }
        return left;
    }

    void requireConditions(const Typed& left, const Typed& right, const Token& op)
    {
        if (!left.isCondition || !right.isCondition)
            report(op.loc, "'" + std::string(op.text) + "' needs comparisons on both sides");
    }

    Typed parseComparison(AffineContext context, const std::string& own)
    {
        Typed left = parseSum(context, own);
        const Tok k = peek().kind;
        if (k == Tok::Less || k == Tok::LessEq || k == Tok::Greater || k == Tok::GreaterEq
            || k == Tok::EqualEq || k == Tok::NotEq) {
            const Token& op = advance();
            Typed right = parseSum(context, own);
            if (left.isCondition || right.isCondition)
                report(op.loc, "'" + std::string(op.text) + "' compares affine expressions, not conditions");
            return Typed{true, {}};
        }
        return left;
    }

    Typed parseSum(AffineContext context, const std::string& own)
    {
        Typed left = parseTerm(context, own);
        while (at(Tok::Plus) || at(Tok::Minus)) {
            const Token& op = advance();
            Typed right = parseTerm(context, own);
            if (left.isCondition || right.isCondition) {
                report(op.loc, "'" + std::string(op.text) + "' cannot combine conditions");
                continue;
            }
            if (!addScaled(left.affine, right.affine, op.kind == Tok::Plus ? 1 : -1))
                fail(op.loc, "integer overflow in expression");
        }
        return left;
    }

    Typed parseTerm(AffineContext context, const std::string& own)
    {
        Typed left = parseUnaryAffine(context, own);
        while (at(Tok::Star) || at(Tok::Slash)) {
            if (at(Tok::Slash))
                fail(peek().loc, "division is not supported in subscripts, bounds or conditions");
            const Token& op = advance();
            Typed right = parseUnaryAffine(context, own);
            if (left.isCondition || right.isCondition) {
                report(op.loc, "'*' cannot multiply conditions");
                continue;
            }
            const AffineExpr* variable = &left.affine;
            std::int64_t scale = right.affine.constant;
            if (!right.affine.isConstant()) {
                if (!left.affine.isConstant()) {
                    report(op.loc,
                        "not affine: '" + left.affine.toString() + "' times '" + right.affine.toString()
                            + "' multiplies two variables");
                    continue;
                }
                variable = &right.affine;
                scale = left.affine.constant;
            }
            AffineExpr product;
            if (!addScaled(product, *variable, scale)) fail(op.loc, "integer overflow in expression");
            left.affine = std::move(product);
        }
        return left;
    }

    Typed parseUnaryAffine(AffineContext context, const std::string& own)
    {
        DepthGuard guard(*this, peek().loc);
        const Token& t = peek();
        if (accept(Tok::Minus)) {
            Typed inner = parseUnaryAffine(context, own);
            if (inner.isCondition) {
                report(t.loc, "'-' cannot negate a condition");
                return inner;
            }
            AffineExpr negated;
            if (!addScaled(negated, inner.affine, -1)) fail(t.loc, "integer overflow in expression");
            inner.affine = std::move(negated);
            return inner;
        }
        if (accept(Tok::Not)) {
            Typed inner = parseUnaryAffine(context, own);
            if (!inner.isCondition) report(t.loc, "'!' needs a condition");
            return Typed{true, {}};
        }
        if (accept(Tok::LParen)) {
            Typed inner
                = context == AffineContext::Condition ? parseOr(context, own) : parseSum(context, own);
            expect(Tok::RParen, "')'");
            return inner;
        }
        if (at(Tok::Int)) {
            advance();
            std::int64_t v = 0;
            if (!parseInteger(t, v) || v > kMaxExtent) {
                report(t.loc,
                    "number '" + std::string(t.text) + "' is too large (at most " + std::to_string(kMaxExtent)
                        + ")");
                v = 0;
            }
            return Typed{false, AffineExpr{{}, v}};
        }
        if (at(Tok::Float)) {
            advance();
            report(t.loc,
                "'" + std::string(t.text) + "' is not an integer: " + contextName(context)
                    + " use integer constants");
            return Typed{};
        }
        if (at(Tok::Ident)) {
            advance();
            return Typed{false, resolve(t, context, own)};
        }
        failHere("an affine expression");
    }

    static std::string contextName(AffineContext context)
    {
        switch (context) {
        case AffineContext::Subscript:
            return "subscripts";
        case AffineContext::Bound:
            return "loop bounds";
        case AffineContext::Condition:
            return "conditions";
        }
        return {};
    }

    bool inScope(const std::string& name) const
    {
        return std::any_of(m_scope.begin(), m_scope.end(), [&](const auto& s) { return s.first == name; });
    }

    /// The meaning of a name inside an affine expression, by context (see parser.h).
    AffineExpr resolve(const Token& t, AffineContext context, const std::string& own)
    {
        const std::string n(t.text);
        AffineExpr variable{{{n, 1}}, 0};
        if (inScope(n)) return variable;
        if (auto size = m_sizes.find(n); size != m_sizes.end()) {
            if (context == AffineContext::Subscript) return AffineExpr{{}, size->second.value};
            return variable;
        }
        if (context == AffineContext::Bound && n == own) {
            report(t.loc, "the bound of loop '" + n + "' cannot use its own iterator");
            return {};
        }
        if (isKeyword(n)) {
            report(t.loc, "unexpected keyword '" + n + "' in an affine expression");
            return {};
        }
        const char* where = context == AffineContext::Subscript ? "subscript"
            : context == AffineContext::Bound                   ? "loop bound"
                                                                : "condition";
        std::string hint;
        if (m_iterators.count(n)) hint = " (loop '" + n + "' does not enclose this point)";
        report(t.loc, "unknown identifier '" + n + "' in " + where + hint);
        return {};
    }

    std::string_view m_src;
    std::string m_file;
    std::vector<Token> m_tokens;
    std::size_t m_pos = 0;
    std::vector<Diagnostic> m_diags;
    int m_depth = 0;
    int m_statementCount = 0;
    int m_loopCount = 0;
    int m_subscriptCount = 0;
    std::map<std::string, SizeParam> m_sizes;
    std::map<std::string, SourceLoc> m_iterators; ///< every iterator of the operator (names are unique)
    std::vector<std::pair<std::string, std::int64_t>> m_scope; ///< enclosing loops: iterator, largest extent
    std::map<std::string, std::pair<std::size_t, SourceLoc>> m_tensorRanks;
};

} // namespace

Operator parseOperator(std::string_view text, const std::string& fileName)
{
    Operator op = Parser(text, fileName).run();
    op.source = std::string(text);
    return op;
}

Operator parseOperatorFile(const std::string& path)
{
    return parseOperator(readTextFile(path), path);
}

} // namespace marvel::ir
