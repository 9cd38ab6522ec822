#include "cli_args.h"

#include <charconv>
#include <iostream>
#include <string>
#include <vector>

namespace tf::cli {

std::optional<int> parse_args(CLI::App& app, int argc, const char* const* argv) {
    try {
        app.parse(argc, argv);
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help: the chosen subcommand's help
        // The (sub)command the error is about: the last one the command line chose.
        const CLI::App* at = &app;
        std::string parent, path = app.get_name();
        while (!at->get_subcommands().empty()) {
            at = at->get_subcommands().back();
            parent = path;
            path += " " + at->get_name();
        }
        const bool needs_subcommand =
            at->get_require_subcommand_min() > 0 && at->get_subcommands().empty();
        const std::vector<std::string> left = app.remaining(true);
        const std::string what = e.what();
        const std::size_t colon = what.find(':');
        if (needs_subcommand && !left.empty())
            std::cerr << path << ": unknown command '" << left.front() << "'\n";
        else if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && colon != std::string::npos &&
                 what.ends_with(" missing"))  // "--level: 1 required N:1 to 5 missing"
            std::cerr << path << ": " << what.substr(0, colon) << " needs a value\n";
        else
            std::cerr << path << ": " << what << "\n";
        if (needs_subcommand)
            std::cerr << at->help(parent);
        else
            std::cerr << "Run '" << path << " --help' for the options.\n";
        return kUsageError;
    }
}

CLI::Validator whole_number(std::uint64_t lo, std::uint64_t hi) {
    const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
    return CLI::Validator(
        [lo, hi, range](std::string& s) -> std::string {
            std::uint64_t v = 0;
            const char* end = s.data() + s.size();
            const bool digits =
                !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
            const auto [stop, ec] = std::from_chars(s.data(), end, v);
            if (!digits || ec != std::errc() || stop != end || v < lo || v > hi)
                return "'" + s + "' is not a whole number from " + range;
            s = std::to_string(v);
            return "";
        },
        range);
}

CLI::Validator positive_number() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            double v = 0;
            const char* end = s.data() + s.size();
            const auto [stop, ec] = std::from_chars(s.data(), end, v);
            if (s.empty() || ec != std::errc() || stop != end || !(v > 0))
                return "'" + s + "' is not a number above 0";
            return "";
        },
        "> 0");
}

}  // namespace tf::cli
