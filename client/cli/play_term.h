// The terminal side of `trunkfield play`: a line editor with a live prompt line when both stdin
// and stdout are terminals (raw mode; messages are printed above the prompt, which is redrawn
// with whatever the user has typed so far), plain line reading otherwise (pipes, scripts).
#pragma once

#include <termios.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tf::play {

class Term {
  public:
    // `interactive`: put the terminal on stdin into raw mode and edit lines ourselves.
    explicit Term(bool interactive);
    ~Term();
    Term(const Term&) = delete;
    Term& operator=(const Term&) = delete;

    bool interactive() const { return interactive_; }
    // Prints `text` (one or more lines; a final newline is added) above the prompt.
    void print(std::string_view text);
    // The prompt shown before the input (may hold SGR colour codes); redrawn when it changed.
    void set_prompt(const std::string& prompt);
    // A password is typed: shown as stars, kept out of the history and the scrollback.
    void set_secret(bool on) { secret_ = on; }

    struct Input {
        bool eof = false;     // Ctrl-D on an empty line, or end of input
        bool redraw = false;  // Ctrl-L
    };
    using LineFn = std::function<void(const std::string&)>;
    // Feeds bytes read from stdin; each complete line goes to `on_line` as soon as it is
    // complete (so its output comes before the echo of the next one).
    Input feed(std::string_view bytes, const LineFn& on_line);
    // Marks the end of stdin (read() returned 0); a last partial line goes to `on_line`.
    Input end_of_input(const LineFn& on_line);

    // Restores the terminal (also done by the destructor); safe to call twice.
    void restore();

  private:
    void key(unsigned char c, Input& in, const LineFn& on_line);
    void csi(char final, int param);
    void submit(const LineFn& on_line);
    void draw_line();
    void write_out(std::string_view s);
    int columns() const;

    bool interactive_;
    bool raw_ = false;
    termios saved_{};
    std::string prompt_;
    bool secret_ = false;
    std::string buf_;
    std::size_t cur_ = 0;  // byte offset of the cursor in buf_
    std::vector<std::string> history_;
    std::size_t hist_pos_ = 0;
    std::string hist_stash_;
    enum class Esc { None, Esc, Csi, Ss3 } esc_ = Esc::None;
    std::string esc_param_;
    std::string pipe_buf_;  // non-interactive: a partial line
};

// Visible width of text that may hold SGR escapes and UTF-8 (one column per code point).
std::size_t visible_width(std::string_view s);

}  // namespace tf::play
