#include "proto/errors.h"

namespace tf::proto {

std::string_view err_name(Err e) {
    switch (e) {
#define X(id, name) \
    case Err::id:   \
        return name;
        TF_PROTO_ERRORS(X)
#undef X
    }
    return "internal";
}

std::optional<Err> err_from_name(std::string_view name) {
    for (std::size_t i = 0; i < kErrCount; ++i)
        if (err_name(Err(i)) == name) return Err(i);
    return std::nullopt;
}

}  // namespace tf::proto
