#include "serving/scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ws::serving {

const char* toString(FinishReason reason) {
    switch (reason) {
        case FinishReason::Stop:
            return "stop";
        case FinishReason::Length:
            return "length";
        case FinishReason::Abort:
            return "abort";
    }
    return "abort";
}

Scheduler::Scheduler(const EngineConfig& config, TokenId eosToken)
    : config_(config), eos_(eosToken), blocks_(config.numBlocks, config.blockSize) {
    config_.validate();
}

void Scheduler::add(SeqId id, std::vector<TokenId> prompt, const SamplingParams& sampling,
                    std::uint64_t seed) {
    if (prompt.empty()) throw std::invalid_argument("a request needs at least one prompt token");
    if (sampling.maxTokens < 1) throw std::invalid_argument("max_tokens must be at least 1");
    if (static_cast<long long>(prompt.size()) + sampling.maxTokens > config_.maxModelLen)
        throw std::invalid_argument("prompt + max_tokens exceeds max_model_len");
    if (seqs_.count(id))
        throw std::invalid_argument("sequence id " + std::to_string(id) + " is taken");
    Sequence s;
    s.id = id;
    s.promptLen = static_cast<int>(prompt.size());
    s.tokens = std::move(prompt);
    s.sampling = sampling;
    s.seed = seed;
    seqs_.emplace(id, std::move(s));
    waiting_.push_back(id);
}

const Sequence* Scheduler::find(SeqId id) const {
    auto it = seqs_.find(id);
    return it == seqs_.end() ? nullptr : &it->second;
}

bool Scheduler::abort(SeqId id) {
    auto it = seqs_.find(id);
    if (it == seqs_.end()) return false;
    finish(it->second);
    return true;
}

void Scheduler::finish(Sequence& s) {
    const SeqId id = s.id;  // s is gone after the erase
    blocks_.release(s.blocks);
    if (s.running)
        running_.erase(std::find(running_.begin(), running_.end(), id));
    else
        waiting_.erase(std::find(waiting_.begin(), waiting_.end(), id));
    seqs_.erase(id);
}

void Scheduler::preempt(Sequence& s) {
    blocks_.release(s.blocks);
    s.numComputed = 0;
    s.running = false;
    ++s.preemptions;
    ++preemptionsTotal_;
    waiting_.push_front(s.id);
}

ScheduledSeq Scheduler::entry(const Sequence& s, int count) const {
    ScheduledSeq e;
    e.seq = s.id;
    e.start = s.numComputed;
    e.tokens.assign(s.tokens.begin() + s.numComputed, s.tokens.begin() + s.numComputed + count);
    e.prefill = s.numComputed < s.prefillEnd;
    e.sample = e.end() == static_cast<int>(s.tokens.size());
    e.blocks = s.blocks;
    e.temperature = s.sampling.temperature;
    e.seed = s.seed;
    e.outputIndex = s.outputLen();
    return e;
}

StepPlan Scheduler::schedule() {
    StepPlan plan;
    plan.seqs.reserve(std::min<std::size_t>(static_cast<std::size_t>(config_.maxNumSeqs),
                                            running_.size() + waiting_.size()));
    int budget = config_.maxNumBatchedTokens;
    int preempted = 0;

    // Running sequences first, oldest first.
    for (std::size_t i = 0; i < running_.size() && budget > 0;) {
        Sequence& s = seqs_.at(running_[i]);
        int count = std::min(static_cast<int>(s.tokens.size()) - s.numComputed, budget);
        bool selfPreempted = false;
        while (!blocks_.grow(s.blocks, s.numComputed + count)) {
            Sequence& victim = seqs_.at(running_.back());
            running_.pop_back();
            preempt(victim);
            ++preempted;
            if (&victim == &s) {
                selfPreempted = true;
                break;
            }
        }
        if (selfPreempted) break;
        plan.seqs.push_back(entry(s, count));
        budget -= count;
        ++i;
    }

    // Then new (or preempted) ones, unless this step had to preempt.
    while (preempted == 0 && !waiting_.empty() && budget > 0 &&
           static_cast<int>(running_.size()) < config_.maxNumSeqs) {
        Sequence& s = seqs_.at(waiting_.front());
        int count = static_cast<int>(s.tokens.size());
        if (count > budget) {
            if (!config_.chunkedPrefill) break;
            count = budget;
        }
        if (!blocks_.grow(s.blocks, count)) break;
        waiting_.pop_front();
        s.running = true;
        s.prefillEnd = static_cast<int>(s.tokens.size());
        running_.push_back(s.id);
        plan.seqs.push_back(entry(s, count));
        budget -= count;
    }

    StepStats& st = plan.stats;
    st.step = step_++;
    st.running = numRunning();
    st.waiting = numWaiting();
    for (const auto& e : plan.seqs) {
        int n = static_cast<int>(e.tokens.size());
        st.kvReadTokens += e.end();
        st.attentionPairs += std::int64_t(n) * e.start + std::int64_t(n) * (n + 1) / 2;
        if (e.prefill) {
            ++st.prefillSeqs;
            st.prefillTokens += n;
        } else {
            ++st.decodeSeqs;
            st.decodeTokens += n;
        }
    }
    st.kvBlocksUsed = blocks_.numUsed();
    st.kvBlocksTotal = blocks_.numBlocks();
    st.preemptions = preempted;
    st.preemptionsTotal = preemptionsTotal_;
    return plan;
}

std::vector<SeqUpdate> Scheduler::update(const StepPlan& plan,
                                         const std::vector<TokenId>& sampled) {
    if (static_cast<int>(sampled.size()) != plan.numSampled())
        throw std::invalid_argument("the backend returned " + std::to_string(sampled.size()) +
                                    " tokens for " + std::to_string(plan.numSampled()) +
                                    " sampling sequences");
    std::vector<SeqUpdate> updates;
    updates.reserve(sampled.size());
    std::size_t next = 0;
    for (const auto& e : plan.seqs) {
        Sequence& s = seqs_.at(e.seq);
        s.numComputed = e.end();
        if (!e.sample) continue;
        SeqUpdate u;
        u.seq = s.id;
        u.token = sampled[next++];
        s.tokens.push_back(u.token);
        if (u.token == eos_ && !s.sampling.ignoreEos) {
            u.finished = true;
            u.reason = FinishReason::Stop;
        } else if (s.outputLen() >= s.sampling.maxTokens ||
                   static_cast<int>(s.tokens.size()) >= config_.maxModelLen) {
            u.finished = true;
            u.reason = FinishReason::Length;
        }
        if (u.finished) finish(s);
        updates.push_back(u);
    }
    return updates;
}

}  // namespace ws::serving
