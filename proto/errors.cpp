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

}  // namespace tf::proto
