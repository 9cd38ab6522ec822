// Errors from validating untrusted setups, turns and records: a stable code and an exact message.
#pragma once

#include <string>
#include <string_view>

namespace tf {

// Stable codes: their names (error_code_name) travel on the wire and in the rules CLI output.
// Append new codes; never renumber or rename existing ones.
#define TF_ERROR_CODES(X)                                                                     \
    X(BadFormat, "bad_format")               /* wrong JSON shape or type */                   \
    X(BadVariant, "bad_variant")             /* variant parameters out of bounds */           \
    X(WrongPhase, "wrong_phase")             /* setup during play, turn during setup ... */   \
    X(GameOver, "game_over")                 /* the game has already ended */                 \
    X(SetupCount, "setup_count")             /* wrong number of elephants or guardians */     \
    X(SetupZone, "setup_zone")               /* elephant outside the start zone */            \
    X(SetupDuplicate, "setup_duplicate")     /* two pieces on one cell */                     \
    X(SetupRing, "setup_ring")               /* guardian not on the ring */                   \
    X(SetupTaken, "setup_taken")             /* guardian on a cell another guardian holds */  \
    X(SetupCrossing, "setup_crossing")       /* an elephant would stand on a crossing */      \
    X(ElephantRequired, "elephant_required") /* no elephant move although one is legal */     \
    X(NoLegalMove, "no_legal_move")          /* elephant move given although none is legal */ \
    X(NotOwnElephant, "not_own_elephant")    /* `from` holds no elephant of the mover */      \
    X(PathLength, "path_length")             /* path not 1 to 3 steps */                      \
    X(StepShape, "step_shape")               /* landing neither adjacent nor a jump */        \
    X(JumpOverNothing, "jump_over_nothing")  /* two-cell step with no elephant between */     \
    X(StepOffField, "step_off_field")        /* leaves the field without a legal exit */      \
    X(StepOnCrossing, "step_on_crossing")                                                     \
    X(StepOnBurnt, "step_on_burnt")                                                           \
    X(StepRevisit, "step_revisit") /* lands on a cell visited in this move */                 \
    X(StepOnElephant, "step_on_elephant")                                                     \
    X(TrunkNotForward, "trunk_not_forward")   /* trunk reached by a non-forward step */       \
    X(MoveContinues, "move_continues")        /* steps after a trunk or an exit */            \
    X(FacingRequired, "facing_required")      /* move ends on a free cell without facing */   \
    X(FacingNotAllowed, "facing_not_allowed") /* facing after a trunk or an exit */           \
    X(NoBurntLeft, "no_burnt_left")                                                           \
    X(BurntCell, "burnt_cell")              /* burnt trunk on a cell that cannot take it */   \
    X(GuardianNotOwn, "guardian_not_own")   /* `from` holds no guardian of the mover */       \
    X(GuardianTwice, "guardian_twice")      /* one guardian moved twice in a turn */          \
    X(GuardianSteps, "guardian_steps")      /* steps < 1 */                                   \
    X(GuardianBlocked, "guardian_blocked")  /* passes through or stops on a guardian */       \
    X(NotEnoughTrunks, "not_enough_trunks") /* cannot pay for the guardian move */            \
    X(AfterEnd, "after_end")                /* turn goes on after the game ended */

enum class ErrorCode : unsigned char {
#define X(id, name) id,
    TF_ERROR_CODES(X)
#undef X
};

std::string_view error_code_name(ErrorCode c);

struct RuleError {
    ErrorCode code;
    std::string message;
};

}  // namespace tf

#include <utility>
#include <variant>

namespace tf {

// A value or the RuleError that explains why there is none (std::expected arrives with C++23).
template <class T>
class Expected {
  public:
    Expected(T v) : v_(std::move(v)) {}
    Expected(RuleError e) : v_(std::move(e)) {}
    explicit operator bool() const { return v_.index() == 0; }
    T& operator*() { return std::get<0>(v_); }
    const T& operator*() const { return std::get<0>(v_); }
    T* operator->() { return &std::get<0>(v_); }
    const T* operator->() const { return &std::get<0>(v_); }
    const RuleError& error() const { return std::get<1>(v_); }

  private:
    std::variant<T, RuleError> v_;
};

}  // namespace tf
