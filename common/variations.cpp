#include "variations.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "notation.h"
#include "position.h"

namespace tf {

namespace {

RuleError bad(const std::string& m) {
    return RuleError{ErrorCode::BadFormat, m};
}

bool tag_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// A recursive-descent reader over the text. Nodes are addressed by index, never by pointer:
// adding an alternative to a list moves the nodes already in it.
class Reader {
  public:
    explicit Reader(std::string_view s) : s_(s) {}

    Expected<VariationTree> read() {
        VariationTree tree;
        skip();
        while (i_ < s_.size() && s_[i_] == '[') {
            auto tag = read_tag();
            if (!tag) return tag.error();
            tree.tags.push_back(std::move(*tag));
            skip();
        }
        for (auto& [name, value] : tree.tags)
            if (name == "Position") tree.position = value;
        if (tree.position.empty()) return bad("a [Position \"...\"] tag is required");
        auto root = game_from_position(tree.position);
        if (!root) return root.error();
        size_t pos_at = 0;
        while (tree.tags[pos_at].first != "Position") ++pos_at;
        std::rotate(tree.tags.begin(), tree.tags.begin() + long(pos_at),
                    tree.tags.begin() + long(pos_at) + 1);
        tree.position = *position_string(*root);  // canonical: `_` read as spaces
        tree.tags[0].second = tree.position;
        root_comment_ = &tree.comment;
        if (auto e = line(*root, tree.children, 0)) return *e;
        skip();
        if (i_ < s_.size()) return at("')' without a '(' before it");
        return tree;
    }

  private:
    RuleError at(const std::string& m) const {
        return bad("at character " + std::to_string(i_ + 1) + ": " + m);
    }

    void skip() {
        while (i_ < s_.size() && space(s_[i_])) ++i_;
    }

    Expected<std::pair<std::string, std::string>> read_tag() {
        ++i_;  // '['
        size_t start = i_;
        while (i_ < s_.size() && tag_char(s_[i_])) ++i_;
        std::string name(s_.substr(start, i_ - start));
        if (name.empty()) return at("a tag name (letters, digits, _) after '['");
        skip();
        if (i_ >= s_.size() || s_[i_] != '"') return at("a quoted value after the tag name");
        ++i_;
        std::string value;
        while (i_ < s_.size() && s_[i_] != '"') {
            if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
            value += s_[i_++];
        }
        if (i_ >= s_.size()) return at("the tag's value is not closed with '\"'");
        ++i_;
        skip();
        if (i_ >= s_.size() || s_[i_] != ']') return at("']' after the tag's value");
        ++i_;
        return std::pair{std::move(name), std::move(value)};
    }

    // A number and a dot: the turn number; nullopt when the next token is not one.
    std::optional<int> turn_number() {
        size_t j = i_;
        while (j < s_.size() && s_[j] >= '0' && s_[j] <= '9') ++j;
        if (j == i_ || j - i_ > 5 || j >= s_.size() || s_[j] != '.') return std::nullopt;
        const int n = std::stoi(std::string(s_.substr(i_, j - i_)));
        i_ = j + 1;
        return n;
    }

    // The words of one turn: up to the next number, parenthesis, comment or the end.
    std::string turn_words() {
        std::string out;
        for (;;) {
            skip();
            if (i_ >= s_.size() || s_[i_] == '(' || s_[i_] == ')' || s_[i_] == '{') break;
            if (s_[i_] >= '0' && s_[i_] <= '9') {
                size_t j = i_;
                while (j < s_.size() && s_[j] >= '0' && s_[j] <= '9') ++j;
                if (j < s_.size() && s_[j] == '.') break;
            }
            size_t start = i_;
            while (i_ < s_.size() && !space(s_[i_]) && s_[i_] != '(' && s_[i_] != ')' &&
                   s_[i_] != '{')
                ++i_;
            if (!out.empty()) out += ' ';
            out += s_.substr(start, i_ - start);
        }
        return out;
    }

    // Reads turns from `game` into `list` (and the continuations of what it adds) until ')' or
    // the end. `depth`: the nesting of parentheses.
    std::optional<RuleError> line(Game game, std::vector<VariationNode>& list, int depth) {
        std::vector<VariationNode>* into = &list;  // where the next turn goes
        std::vector<VariationNode>* last_list = nullptr;
        size_t last = 0;  // the last turn read: (*last_list)[last]
        Game before = game;
        for (;;) {
            skip();
            if (i_ >= s_.size()) {
                if (depth > 0) return at("a '(' is not closed");
                return std::nullopt;
            }
            const char c = s_[i_];
            if (c == ')') {
                if (depth == 0) return std::nullopt;  // read() reports it
                ++i_;
                return std::nullopt;
            }
            if (c == '{') {
                const size_t close = s_.find('}', i_);
                if (close == std::string_view::npos) return at("a '{' comment is not closed");
                std::string text(s_.substr(i_ + 1, close - i_ - 1));
                while (!text.empty() && space(text.front())) text.erase(text.begin());
                while (!text.empty() && space(text.back())) text.pop_back();
                std::string& to = last_list ? (*last_list)[last].comment : *root_comment_;
                if (!to.empty() && !text.empty()) to += ' ';
                to += text;
                i_ = close + 1;
                continue;
            }
            if (c == '(') {
                if (!last_list) return at("'(' before any turn: an alternative follows a turn");
                if (depth >= 200) return at("variations nest too deep");
                ++i_;
                const size_t keep = last;
                std::vector<VariationNode>* keep_list = last_list;
                if (auto e = line(before, *last_list, depth + 1)) return e;
                last = keep;
                last_list = keep_list;
                into = &(*last_list)[last].children;
                continue;
            }
            const size_t start = i_;
            const auto n = turn_number();
            if (!n)
                return at("a turn number such as '" + std::to_string(game.turns_played() + 1) +
                          ".' before the turn");
            if (*n != game.turns_played() + 1)
                return bad("at character " + std::to_string(start + 1) + ": turn " +
                           std::to_string(*n) + " where turn " +
                           std::to_string(game.turns_played() + 1) + " comes");
            const std::string words = turn_words();
            const std::string where = "turn " + std::to_string(*n) + " (" + words + "): ";
            if (words.empty()) return bad(where + "no turn after the number");
            auto turn = turn_from_notation(words, game.variant().size);
            if (!turn) return bad(where + turn.error().message);
            Game after = game;
            if (auto e = after.apply_turn(*turn)) return RuleError{e->code, where + e->message};
            into->push_back(VariationNode{std::move(*turn), "", {}});
            last_list = into;
            last = into->size() - 1;
            into = &(*last_list)[last].children;
            before = std::move(game);
            game = std::move(after);
        }
    }

    std::string_view s_;
    size_t i_ = 0;
    std::string* root_comment_ = nullptr;
};

class Printer {
  public:
    explicit Printer(int size) : size_(size) {}

    void word(std::string w) {
        if (open_) w.insert(w.begin(), '(');
        open_ = false;
        if (col_ > 0 && col_ + 1 + w.size() > 80) {
            out_ += '\n';
            col_ = 0;
        } else if (col_ > 0) {
            out_ += ' ';
            ++col_;
        }
        out_ += w;
        col_ += w.size();
    }
    void comment(const std::string& c) {
        if (c.empty()) return;
        std::string safe = c;
        for (char& ch : safe)
            if (ch == '}') ch = ')';
        word("{" + safe + "}");
    }
    // One line from a position `turns` turns into the game: the main line through first
    // children, each turn's alternatives in parentheses after it.
    void line(const std::vector<VariationNode>& list, int turns) {
        const std::vector<VariationNode>* at = &list;
        while (!at->empty()) {
            const VariationNode& main = (*at)[0];
            one(main, turns);
            for (size_t k = 1; k < at->size(); ++k) {
                open_ = true;
                one((*at)[k], turns);
                line((*at)[k].children, turns + 1);
                out_ += ')';
                ++col_;
            }
            at = &main.children;
            ++turns;
        }
    }
    void one(const VariationNode& n, int turns) {
        // A turn stays on one line with its number.
        word(std::to_string(turns + 1) + ". " + turn_to_notation(n.turn, size_));
        comment(n.comment);
    }
    std::string take() { return std::move(out_); }

  private:
    int size_;
    std::string out_;
    size_t col_ = 0;
    bool open_ = false;  // the next word opens an alternative
};

Json node_json(const VariationNode& n) {
    Json j = {{"turn", to_json(n.turn)}};
    if (!n.comment.empty()) j["comment"] = n.comment;
    Json kids = Json::array();
    for (const auto& c : n.children) kids.push_back(node_json(c));
    j["children"] = std::move(kids);
    return j;
}

std::optional<RuleError> nodes_from_json(const Json& list, const Game& game,
                                         std::vector<VariationNode>& out, int depth) {
    if (!list.is_array()) return bad("children: expected a list");
    if (depth > 1000) return bad("the tree is deeper than 1000 turns");
    for (const Json& j : list) {
        if (!j.is_object() || !j.contains("turn")) return bad("a node is {\"turn\", \"children\"}");
        auto turn = turn_from_json(j["turn"]);
        if (!turn) return turn.error();
        Game after = game;
        if (auto e = after.apply_turn(*turn))
            return RuleError{e->code,
                             "turn " + std::to_string(game.turns_played() + 1) + ": " + e->message};
        VariationNode n{std::move(*turn), "", {}};
        if (j.contains("comment")) {
            if (!j["comment"].is_string()) return bad("comment: expected a string");
            n.comment = j["comment"].get<std::string>();
        }
        if (j.contains("children"))
            if (auto e = nodes_from_json(j["children"], after, n.children, depth + 1)) return e;
        out.push_back(std::move(n));
    }
    return std::nullopt;
}

}  // namespace

Expected<VariationTree> parse_variations(std::string_view text) {
    return Reader(text).read();
}

std::string print_variations(const VariationTree& tree) {
    std::string out;
    bool position_done = false;
    auto tag = [&](const std::string& name, const std::string& value) {
        out += '[' + name + " \"";
        for (char c : value) {
            if (c == '"' || c == '\\') out += '\\';
            if (c != '\n' && c != '\r') out += c;
        }
        out += "\"]\n";
    };
    tag("Position", tree.position);
    for (const auto& [name, value] : tree.tags) {
        if (name == "Position" && !position_done) {
            position_done = true;
            continue;
        }
        tag(name, value);
    }
    out += '\n';
    auto root = game_from_position(tree.position);
    Printer p(root ? root->variant().size : 9);
    p.comment(tree.comment);
    p.line(tree.children, root ? root->turns_played() : 0);
    std::string body = p.take();
    out += body;
    if (!body.empty()) out += '\n';
    return out;
}

Json to_json(const VariationTree& tree) {
    Json tags = Json::object();
    for (const auto& [name, value] : tree.tags)
        if (name != "Position") tags[name] = value;
    Json kids = Json::array();
    for (const auto& c : tree.children) kids.push_back(node_json(c));
    Json j = {
        {"tags", std::move(tags)}, {"position", tree.position}, {"children", std::move(kids)}};
    if (!tree.comment.empty()) j["comment"] = tree.comment;
    return j;
}

Expected<VariationTree> variations_from_json(const Json& j) {
    if (!j.is_object() || !j.contains("position") || !j["position"].is_string())
        return bad("a tree is {\"position\", \"children\"}");
    auto root = game_from_position(j["position"].get<std::string>());
    if (!root) return root.error();
    VariationTree tree;
    tree.position = *position_string(*root);
    tree.tags.emplace_back("Position", tree.position);
    if (j.contains("tags")) {
        if (!j["tags"].is_object()) return bad("tags: expected an object");
        for (const auto& [name, value] : j["tags"].items()) {
            if (name == "Position" || name.empty() ||
                !std::all_of(name.begin(), name.end(), tag_char) || !value.is_string())
                return bad("tags: names of letters, digits and _, string values");
            tree.tags.emplace_back(name, value.get<std::string>());
        }
    }
    if (j.contains("comment")) {
        if (!j["comment"].is_string()) return bad("comment: expected a string");
        tree.comment = j["comment"].get<std::string>();
    }
    if (j.contains("children"))
        if (auto e = nodes_from_json(j["children"], *root, tree.children, 0)) return *e;
    return tree;
}

}  // namespace tf
