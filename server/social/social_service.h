// The players' notifications (issue 35; proto/PROTOCOL.md "Notifications"): kept in the store
// (server/store/social_db.h) by a thread of their own, then delivered live to every open
// connection of the player, on this node and, through Peers::tell_player, on the others. A
// player who was not connected finds them in the list (GET /api/notifications).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/mail/mailer.h"
#include "server/store/side_thread.h"
#include "server/store/social_db.h"

namespace tf::server {

class Vacations;

// A notification as the protocol gives it: its kind's fields, "id", "kind", "at" and "read".
nlohmann::json notice_json(const StoredNotice& n);

class SocialService {
  public:
    using Open = SideThread<SocialDb>::Open;
    // Hands a server message to every connection of the player (this node's and the others').
    using Deliver = std::function<void(const std::string& player_id, const std::string& text)>;
    // Tells every connection of the player (this node's and the others') that its blocks or its
    // standing changed.
    using Changed = std::function<void(const std::string& player_id)>;
    // A moderator closed the account: every connection of the player ends and its tokens are
    // forgotten, on every node (the store revoked them already).
    using Closed = std::function<void(const std::string& player_id)>;
    SocialService(Open open, Deliver deliver, Changed changed, Closed closed);

    static constexpr int kMaxQueued = 64;  // requests (lists, reads) waiting; notify() never waits

    // Keeps a notification of `kind` with `fields` for the player, then delivers it. A store
    // that cannot keep it: delivered all the same (with "id" 0) and logged.
    void notify(const std::string& player_id, const std::string& kind, nlohmann::json fields);
    // As notify, unless the player was told of `kind` about the same game (fields "game")
    // already: a tournament's pairing told again by a director that took over. A notification
    // kept already is sent again while unread (the same id): the node that kept it may have
    // died before sending it.
    void notify_once(const std::string& player_id, const std::string& kind, nlohmann::json fields);

    // The blocks between the two changed (on the social thread, after the write).
    void relations_changed(const std::string& a, const std::string& b) {
        changed_(a);
        changed_(b);
    }
    // The player's mutes changed.
    void relations_changed(const std::string& a) { changed_(a); }
    // Tells the followers of `player` who asked for it that it started the public game `code`
    // (a notification of kind followed_game).
    void tell_followers(const std::string& player_id, const std::string& name,
                        const std::string& code);

    // On the social thread (inside a job): keeps a notification and delivers it (delivered
    // all the same, with "id" 0, when it cannot be kept; then throws the store's error).
    void tell(SocialDb& db, const std::string& player_id, const std::string& kind,
              const nlohmann::json& fields);
    // On the social thread, after SocialDb::act: what the action does beyond the store — the
    // warning and the reporter's notification, the player's connections told of its new
    // standing, or ended (a closed account).
    void acted(SocialDb& db, const ModAction& a, const ActResult& r);

    // A job on the thread: SideThread::run (`bounded`: a request's, refused when kMaxQueued
    // wait; the server's own always queue).
    template <class T>
    bool run(std::function<T(SocialDb&)> job, Store::Executor ex, std::function<void(Read<T>)> then,
             bool bounded = true) {
        return thread_.run<T>(std::move(job), std::move(ex), std::move(then), bounded);
    }

    // E-mail: the mailer starts (on a store connection `open` makes) when the operator gave a
    // relay (--smtp-url); without one, mail() is null and no address can be given.
    void start_mail(MailConfig cfg, Mailer::Open open, Mailer::Send send = {}) {
        mail_cfg_ = cfg;
        mailer_ = std::make_unique<Mailer>(std::move(cfg), std::move(open), std::move(send));
    }
    const MailConfig* mail() const { return mailer_ ? &mail_cfg_ : nullptr; }
    Mailer* mailer() { return mailer_.get(); }

    // Who is on vacation (server/social/vacations.h), set once by main().
    void set_vacations(std::shared_ptr<Vacations> v) { vacations_ = std::move(v); }
    Vacations* vacations() const { return vacations_.get(); }

  private:
    Deliver deliver_;
    Changed changed_;
    Closed closed_;
    MailConfig mail_cfg_;
    std::unique_ptr<Mailer> mailer_;
    std::shared_ptr<Vacations> vacations_;
    SideThread<SocialDb> thread_;  // last: joined first
};

}  // namespace tf::server
