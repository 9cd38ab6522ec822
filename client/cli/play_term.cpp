#include "play_term.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace tf::play {

namespace {

constexpr std::size_t kMaxInputLine = 4096;  // bytes; longer input is cut
constexpr std::size_t kMaxHistory = 200;

bool is_cont(unsigned char c) {
    return (c & 0xC0) == 0x80;
}

}  // namespace

std::size_t visible_width(std::string_view s) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1b) {  // skip a CSI sequence: ESC [ params final
            ++i;
            if (i < s.size() && s[i] == '[') {
                ++i;
                while (i < s.size() &&
                       !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
                    ++i;
            }
            continue;
        }
        if (!is_cont(c)) ++w;
    }
    return w;
}

Term::Term(bool interactive) : interactive_(interactive) {
    if (!interactive_) return;
    if (tcgetattr(STDIN_FILENO, &saved_) != 0) {
        interactive_ = false;
        return;
    }
    termios raw = saved_;
    // No line discipline, echo or signal keys (Ctrl-C, Ctrl-Z) — we edit and interpret keys
    // ourselves; output processing stays on, so "\n" still starts a new line.
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN);
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) != 0) {
        interactive_ = false;
        return;
    }
    raw_ = true;
}

Term::~Term() {
    restore();
}

void Term::restore() {
    if (!raw_) return;
    write_out("\r\x1b[K");
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_);
    raw_ = false;
}

void Term::write_out(std::string_view s) {
    while (!s.empty()) {
        ssize_t n = ::write(STDOUT_FILENO, s.data(), s.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // stdout gone: nothing sensible to do
        s.remove_prefix(std::size_t(n));
    }
}

int Term::columns() const {
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
    return 80;
}

void Term::print(std::string_view text) {
    std::string out;
    if (raw_) out += "\r\x1b[K";
    out += text;
    if (out.empty() || out.back() != '\n') out += '\n';
    write_out(out);
    if (raw_) draw_line();
}

void Term::set_prompt(const std::string& prompt) {
    if (prompt == prompt_) return;
    prompt_ = prompt;
    if (raw_) draw_line();
}

// Draws the prompt and the input, scrolled sideways when it is wider than the terminal.
void Term::draw_line() {
    const std::size_t cols = std::size_t(columns());
    const std::size_t pw = visible_width(prompt_);
    std::vector<std::size_t> starts;  // byte offset of each code point of buf_
    std::size_t cur_cp = 0;
    for (std::size_t i = 0; i < buf_.size(); ++i) {
        if (is_cont((unsigned char)buf_[i])) continue;
        if (i < cur_) cur_cp = starts.size() + 1;
        starts.push_back(i);
    }
    if (cur_ == 0) cur_cp = 0;
    const std::size_t n = starts.size();
    std::size_t avail = cols > pw + 2 ? cols - pw - 1 : 1;
    std::string prompt = prompt_;
    if (cols <= pw + 10) {  // a narrow terminal: drop the prompt, keep the input usable
        prompt = "> ";
        avail = cols > 3 ? cols - 3 : 1;
    }
    std::size_t first = 0;
    if (n > avail) {
        first = cur_cp + 1 > avail ? cur_cp + 1 - avail : 0;
        if (first + avail > n) first = n > avail ? n - avail : 0;
    }
    std::size_t last = std::min(n, first + avail);
    std::size_t b0 = first < n ? starts[first] : buf_.size();
    std::size_t b1 = last < n ? starts[last] : buf_.size();
    std::string shown = buf_.substr(b0, b1 - b0);
    if (secret_) shown.assign(last - first, '*');
    std::string out = "\r" + prompt + shown + "\x1b[K";
    std::size_t after = last > cur_cp ? last - cur_cp : 0;
    if (after > 0) out += "\x1b[" + std::to_string(after) + "D";
    write_out(out);
}

Term::Input Term::feed(std::string_view bytes, const LineFn& on_line) {
    Input in;
    if (!interactive_) {
        for (char c : bytes) {
            if (c != '\n') {
                if (pipe_buf_.size() < kMaxInputLine) pipe_buf_ += c;
                continue;
            }
            std::string line = std::move(pipe_buf_);
            pipe_buf_.clear();
            if (!line.empty() && line.back() == '\r') line.pop_back();
            on_line(line);
        }
        return in;
    }
    for (unsigned char c : bytes) {
        key(c, in, on_line);
        if (in.eof) break;
    }
    draw_line();
    return in;
}

Term::Input Term::end_of_input(const LineFn& on_line) {
    Input in;
    if (!interactive_ && !pipe_buf_.empty()) {
        std::string line = std::move(pipe_buf_);
        pipe_buf_.clear();
        on_line(line);
    }
    in.eof = true;
    return in;
}

void Term::submit(const LineFn& on_line) {
    std::string line = std::move(buf_);
    buf_.clear();
    cur_ = 0;
    // Echo the line into the scrollback, as a cooked terminal would.
    write_out("\r" + prompt_ + (secret_ ? std::string(visible_width(line), '*') : line) +
              "\x1b[K\n");
    if (secret_) {
        on_line(line);
        return;
    }
    if (!line.empty() && (history_.empty() || history_.back() != line)) {
        history_.push_back(line);
        if (history_.size() > kMaxHistory) history_.erase(history_.begin());
    }
    hist_pos_ = history_.size();
    on_line(line);
}

void Term::key(unsigned char c, Input& in, const LineFn& on_line) {
    if (esc_ == Esc::Esc) {
        esc_param_.clear();
        esc_ = c == '[' ? Esc::Csi : c == 'O' ? Esc::Ss3 : Esc::None;
        return;
    }
    if (esc_ == Esc::Ss3) {
        esc_ = Esc::None;
        csi(char(c), 0);
        return;
    }
    if (esc_ == Esc::Csi) {
        if (c >= 0x40 && c <= 0x7e) {
            esc_ = Esc::None;
            int param = 0;
            for (char d : esc_param_) {
                if (d < '0' || d > '9') break;
                param = param * 10 + (d - '0');
                if (param > 10000) break;
            }
            csi(char(c), param);
        } else if (esc_param_.size() < 16) {
            esc_param_ += char(c);
        }
        return;
    }
    switch (c) {
        case 0x1b:
            esc_ = Esc::Esc;
            return;
        case '\r':
        case '\n':
            submit(on_line);
            return;
        case 0x7f:
        case 0x08:  // backspace: remove the code point before the cursor
            if (cur_ > 0) {
                std::size_t p = cur_ - 1;
                while (p > 0 && is_cont((unsigned char)buf_[p])) --p;
                buf_.erase(p, cur_ - p);
                cur_ = p;
            }
            return;
        case 0x01:
            cur_ = 0;
            return;  // Ctrl-A
        case 0x05:
            cur_ = buf_.size();
            return;  // Ctrl-E
        case 0x02:
            csi('D', 0);
            return;  // Ctrl-B
        case 0x06:
            csi('C', 0);
            return;  // Ctrl-F
        case 0x0b:
            buf_.erase(cur_);
            return;  // Ctrl-K
        case 0x15:   // Ctrl-U
            buf_.erase(0, cur_);
            cur_ = 0;
            return;
        case 0x17: {  // Ctrl-W: the word before the cursor
            std::size_t p = cur_;
            while (p > 0 && buf_[p - 1] == ' ') --p;
            while (p > 0 && buf_[p - 1] != ' ') --p;
            buf_.erase(p, cur_ - p);
            cur_ = p;
            return;
        }
        case 0x0c:
            in.redraw = true;
            return;  // Ctrl-L
        case 0x03:   // Ctrl-C: drop the line
            if (buf_.empty()) {
                print("(type quit, or press Ctrl-D, to leave)");
            } else {
                buf_.clear();
                cur_ = 0;
            }
            return;
        case 0x04:  // Ctrl-D: end on an empty line, else delete under the cursor
            if (buf_.empty()) {
                in.eof = true;
            } else {
                csi('~', 3);
            }
            return;
        case '\t':
            c = ' ';
            break;
        default:
            break;
    }
    if (c < 0x20) return;  // other control keys do nothing
    if (buf_.size() >= kMaxInputLine) return;
    buf_.insert(buf_.begin() + std::ptrdiff_t(cur_), char(c));
    ++cur_;
}

void Term::csi(char final, int param) {
    switch (final) {
        case 'A':  // up: older history
            if (hist_pos_ > 0) {
                if (hist_pos_ == history_.size()) hist_stash_ = buf_;
                --hist_pos_;
                buf_ = history_[hist_pos_];
                cur_ = buf_.size();
            }
            return;
        case 'B':  // down: newer history
            if (hist_pos_ < history_.size()) {
                ++hist_pos_;
                buf_ = hist_pos_ == history_.size() ? hist_stash_ : history_[hist_pos_];
                cur_ = buf_.size();
            }
            return;
        case 'C':
            if (cur_ < buf_.size()) {
                ++cur_;
                while (cur_ < buf_.size() && is_cont((unsigned char)buf_[cur_])) ++cur_;
            }
            return;
        case 'D':
            if (cur_ > 0) {
                --cur_;
                while (cur_ > 0 && is_cont((unsigned char)buf_[cur_])) --cur_;
            }
            return;
        case 'H':
            cur_ = 0;
            return;
        case 'F':
            cur_ = buf_.size();
            return;
        case '~':
            if (param == 1 || param == 7) cur_ = 0;
            if (param == 4 || param == 8) cur_ = buf_.size();
            if (param == 3 && cur_ < buf_.size()) {  // Delete
                std::size_t e = cur_ + 1;
                while (e < buf_.size() && is_cont((unsigned char)buf_[e])) ++e;
                buf_.erase(cur_, e - cur_);
            }
            return;
        default:
            return;
    }
}

}  // namespace tf::play
