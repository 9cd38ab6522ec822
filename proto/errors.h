// Stable protocol error codes (proto/PROTOCOL.md, "Error codes"). The names travel on the wire.
// Append new codes; never rename existing ones.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tf::proto {

#define TF_PROTO_ERRORS(X)                                                                         \
    X(BadJson, "bad_json")         /* not a JSON object */                                         \
    X(UnknownType, "unknown_type") /* "type" missing or not a known message */                     \
    X(BadMessage, "bad_message")   /* missing or mistyped field */                                 \
    X(UnsupportedVersion, "unsupported_version")                                                   \
    X(TooLarge, "too_large")           /* message over 16 KiB */                                   \
    X(RateLimited, "rate_limited")     /* out of message credits */                                \
    X(BinaryFrame, "binary_frame")     /* WebSocket binary frame */                                \
    X(HelloRequired, "hello_required") /* anything but hello before welcome */                     \
    X(AlreadyHello, "already_hello")   /* second hello on one connection */                        \
    X(BadToken, "bad_token")           /* unknown or forged session token */                       \
    X(BadVariant, "bad_variant")                                                                   \
    X(NoSuchGame, "no_such_game")                                                                  \
    X(GameFull, "game_full")                                                                       \
    X(NotCreator, "not_creator")                                                                   \
    X(AlreadyStarted, "already_started")                                                           \
    X(NotSeated, "not_seated")   /* acting in a game without a seat */                             \
    X(NotStarted, "not_started") /* waiting for an opponent */                                     \
    X(NotYourTurn, "not_your_turn")                                                                \
    X(StaleVersion, "stale_version") /* turn based on an old version */                            \
    X(IllegalSetup, "illegal_setup") /* rules rejected it; see "rule" */                           \
    X(IllegalTurn, "illegal_turn")   /* rules rejected it; see "rule" */                           \
    X(WrongPhase, "wrong_phase")     /* setup during play or the reverse */                        \
    X(GameOver, "game_over")                                                                       \
    X(ChatTooLong, "chat_too_long")                                                                \
    X(ChatRate, "chat_rate")         /* too many chat lines in the window */                       \
    X(NotClaimable, "not_claimable") /* claim_win while the opponent may return */                 \
    X(NotAbortable, "not_abortable") /* abort once a turn of play has been made */                 \
    X(NoDrawOffer, "no_draw_offer")  /* accept/decline without an offer */                         \
    X(DrawPending, "draw_pending")   /* a second offer before your next turn */                    \
    X(TakebackOff, "takeback_off")   /* a takeback where a player does not accept them */          \
    X(NothingToTakeBack, "nothing_to_take_back") /* no turn of yours that may be taken back */     \
    X(NoTakebackOffer, "no_takeback_offer")      /* accept/decline without a request */            \
    X(TakebackPending, "takeback_pending")       /* a second request before your next turn */      \
    X(MoreTimeOff, "more_time_off") /* give_time in an untimed game or to a player who refuses */  \
    X(BerserkOff, "berserk_off") /* berserk where the game allows none, or too late, or again */   \
    X(Flooding, "flooding")      /* kept sending without credits; the connection closes */         \
    X(Internal, "internal")                                                                        \
    X(StoreFailed, "store_failed")    /* the game could not be saved; suspended meanwhile */       \
    X(TooManyGames, "too_many_games") /* create_game over the per-player limit of open games */    \
    X(TooManyConnections, "too_many_connections") /* per-IP connection limit; then closed */       \
    X(StoreUnavailable, "store_unavailable")      /* the store cannot save or read right now */    \
    X(GameNotOver, "game_not_over")               /* a rematch before the game ended */            \
    X(NoRematchOffer, "no_rematch_offer")         /* rematch_decline without an offer */           \
    X(RematchPending, "rematch_pending")          /* a second rematch offer */                     \
    X(BadUsername, "bad_username")                /* not 3-20 letters, digits, _ -; or reserved */ \
    X(UsernameTaken, "username_taken")            /* another account has it (any letter case) */   \
    X(WeakPassword, "weak_password")              /* a new password shorter than 8 or over 128 */  \
    X(BadCredentials, "bad_credentials")          /* no such account, or the wrong password */     \
    X(TooManyAttempts, "too_many_attempts") /* failed logins: wait (per address, per account) */   \
    X(AccountRequired, "account_required")  /* rated play, logout or password change as a guest */ \
    X(AlreadyRegistered, "already_registered") /* register on a connection with an account */      \
    X(NotRatable, "not_ratable") /* rated with a computer or a variant without a rating */         \
    X(TryAgain, "try_again")     /* the password threads' queue is full: a moment later */         \
    X(TooManyOpenGames, "too_many_open_games") /* open games per player or address */              \
    X(BadName, "bad_name") /* a guest name with controls, or an account's or a reserved one */     \
    X(InDoubt, "in_doubt") /* a commit failed and the store cannot tell: watch again later */      \
    X(NotInvited, "not_invited")       /* joining or declining a challenge made to someone else */ \
    X(UnknownPlayer, "unknown_player") /* a challenge to a username no account has */              \
    X(CannotChallenge, "cannot_challenge") /* yourself, a bot game, or a blocked player */         \
    X(Blocked, "blocked")      /* joining a game of an account you blocked or that blocked you */  \
    X(ChatMuted, "chat_muted") /* chat while a moderator muted you */                              \
    X(AccountClosed, "account_closed") /* login to an account a moderator closed */                \
    X(BotAccount, "bot_account") /* a bot in quick match or in a public game nobody asked of it */

enum class Err : unsigned char {
#define X(id, name) id,
    TF_PROTO_ERRORS(X)
#undef X
};

inline constexpr std::size_t kErrCount = 0
#define X(id, name) +1
    TF_PROTO_ERRORS(X)
#undef X
    ;

std::string_view err_name(Err e);
// The code a name on the wire stands for; nullopt for a name this build does not know.
std::optional<Err> err_from_name(std::string_view name);

// What a parse or a request failed with; serialized as an "error" message. `ref` is the
// request's, when one could be read from it; `rule` the rules library's code of an illegal
// setup or turn.
struct Error {
    Err code;
    std::string message;
    std::optional<std::string> ref = std::nullopt;
    std::optional<std::string> rule = std::nullopt;
};

}  // namespace tf::proto
