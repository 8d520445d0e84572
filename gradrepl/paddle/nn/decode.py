"""``paddle.nn.BeamSearchDecoder`` and ``paddle.nn.dynamic_decode`` (dynamic graph), as the
seq2seq tutorials use them: Paddle's Python composites over its API, op for op, so the beams,
scores and the graph are Paddle's.

A decoder runs an RNN cell one step at a time. ``BeamSearchDecoder`` keeps ``beam_size``
hypotheses a sample: each step it takes the log-softmax of the cell's logits, masks finished
beams (they may only emit ``end_token`` at no cost), adds the beams' running log-probabilities,
keeps the top ``beam_size`` of ``beam_size * vocab`` candidates and gathers the cell states,
finished flags and lengths of the beams they came from. ``dynamic_decode`` loops until every
beam finished (or ``max_step_num``), stacks the step outputs and backtracks the ids with
``gather_tree``.
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

_KINF = 1000000000.0


def _P():
    from ... import paddle

    return paddle


class _Steps:
    """The outputs of each step, in order (Paddle's ArrayWrapper)."""

    def __init__(self, x):
        self.array = [x]

    def append(self, x):
        self.array.append(x)
        return self

    def __getitem__(self, item):
        return self.array.__getitem__(item)


class Decoder:
    """The decoder interface ``dynamic_decode`` drives: initialize, step, finalize."""

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over an RNN cell (see the module docstring)."""

    class OutputWrapper(NamedTuple):
        scores: object
        predicted_ids: object
        parent_ids: object

    class StateWrapper(NamedTuple):
        cell_states: object
        log_probs: object
        finished: object
        lengths: object

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None,
                 output_fn=None):
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = start_token
        self.end_token = end_token
        self.beam_size = beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """[batch, ...] -> [batch * beam_size, ...], each sample's copies side by side."""
        P = _P()
        x = P.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = beam_size
        x = P.tile(x, times)
        x = P.transpose(x, [*range(2, len(x.shape)), 0, 1])
        x = P.reshape(x, shape=[0] * (len(x.shape) - 2) + [-1])
        return P.transpose(x, [len(x.shape) - 1, *range(0, len(x.shape) - 1)])

    def _split_batch_beams(self, x):
        return _P().reshape(x, shape=[-1, self.beam_size, *list(x.shape[1:])])

    def _merge_batch_beams(self, x):
        return _P().reshape(x, shape=[-1, *list(x.shape[2:])])

    def _expand_to_beam_size(self, x):
        P = _P()
        x = P.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = self.beam_size
        return P.tile(x, times)

    def _mask_probs(self, probs, finished):
        """Finished beams: only end_token, at log-probability 0."""
        P = _P()
        finished = P.cast(finished, dtype=probs.dtype)
        return (P.multiply(P.tile(P.unsqueeze(finished, [2]), [1, 1, self.vocab_size]),
                           self.noend_mask_tensor)
                - P.multiply(probs, (finished - 1).unsqueeze([2])))

    def _gather(self, x, indices, batch_size):
        """x[b, indices[b, k]] for every sample b and beam k."""
        P = _P()
        if batch_size.dtype != indices.dtype:
            batch_size = P.cast(batch_size, indices.dtype)
        batch_size.stop_gradient = True
        batch_pos = P.tile(P.unsqueeze(P.arange(0, batch_size, 1, dtype=indices.dtype), [1]),
                           [1, self.beam_size])
        coords = P.stack([batch_pos, indices], axis=2)
        coords.stop_gradient = True
        return P.gather_nd(x, coords)

    def initialize(self, initial_cell_states):
        P = _P()
        self.kinf = _KINF
        state = P.utils.flatten(initial_cell_states)[0]
        self.batch_size = P.shape(state)[0]
        self.start_token_tensor = P.full(shape=[1], dtype="int64", fill_value=self.start_token)
        self.end_token_tensor = P.full(shape=[1], dtype="int64", fill_value=self.end_token)
        cell_states = P.utils.map_structure(self._expand_to_beam_size, initial_cell_states)
        inputs = P.full(shape=[self.batch_size, self.beam_size],
                        fill_value=self.start_token_tensor, dtype=self.start_token_tensor.dtype)
        log_probs = P.tile(P.assign(np.array([[0.0] + [-self.kinf] * (self.beam_size - 1)],
                                             dtype="float32")), [self.batch_size, 1])
        if P.get_default_dtype() == "float64":
            log_probs = P.cast(log_probs, "float64")
        finished = P.full(shape=[P.shape(state)[0], self.beam_size], fill_value=False,
                          dtype="bool")
        lengths = P.zeros_like(inputs)
        inputs = self.embedding_fn(inputs) if self.embedding_fn else inputs
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        P = _P()
        self.vocab_size = logits.shape[-1]
        self.vocab_size_tensor = P.full(shape=[1], dtype="int64", fill_value=self.vocab_size)
        noend = [-self.kinf] * self.vocab_size
        noend[self.end_token] = 0
        self.noend_mask_tensor = P.assign(np.array(noend, "float32"))
        if P.get_default_dtype() == "float64":
            self.noend_mask_tensor = P.cast(self.noend_mask_tensor, "float64")
        step_log_probs = P.log(P.nn.functional.softmax(logits))
        step_log_probs = self._mask_probs(step_log_probs, beam_state.finished)
        log_probs = P.add(step_log_probs, beam_state.log_probs.unsqueeze([2]))
        scores = P.reshape(log_probs, [-1, self.beam_size * self.vocab_size])
        topk_scores, topk_indices = P.topk(x=scores, k=self.beam_size)
        beam_indices = P.floor_divide(topk_indices, self.vocab_size_tensor)
        token_indices = P.remainder(topk_indices, self.vocab_size_tensor)
        next_log_probs = self._gather(
            P.reshape(log_probs, [-1, self.beam_size * self.vocab_size]), topk_indices,
            self.batch_size)
        next_cell_states = P.utils.map_structure(
            lambda x: self._gather(x, beam_indices, self.batch_size), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices, self.batch_size)
        next_lengths = self._gather(beam_state.lengths, beam_indices, self.batch_size)
        next_lengths = next_lengths + P.cast(P.logical_not(next_finished),
                                             beam_state.lengths.dtype)
        next_finished = P.logical_or(next_finished, P.equal(token_indices,
                                                            self.end_token_tensor))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished, next_lengths))

    def step(self, time, inputs, states, **kwargs):
        P = _P()
        inputs = P.utils.map_structure(self._merge_batch_beams, inputs)
        cell_states = P.utils.map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = P.utils.map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = P.utils.map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        out, state = self._beam_search_step(time=time, logits=cell_outputs,
                                            next_cell_states=next_cell_states,
                                            beam_state=states)
        sample_ids = out.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return out, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        P = _P()
        ids = P.nn.functional.gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return P.cast(ids, dtype=outputs.predicted_ids.dtype), final_states

    @property
    def tracks_own_finished(self):
        return True


def _keep_finished(state, new_state, step_mask):
    """new_state where the step is live, state where it had finished (impute_finished)."""
    P = _P()
    dtype = state.dtype
    is_bool = dtype == P.bool
    if is_bool:
        state, new_state = P.cast(state, dtype="float32"), P.cast(new_state, dtype="float32")
    if step_mask.dtype != state.dtype:
        step_mask = P.cast(step_mask, dtype=state.dtype)
    step_mask = step_mask.unsqueeze([1])
    step_mask.stop_gradient = True
    new_state = P.multiply(state, step_mask) - P.multiply(new_state, step_mask - 1)
    return P.cast(new_state, dtype=dtype) if is_bool else new_state


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False,
                   impute_finished=False, is_test=False, return_length=False, **kwargs):
    """Run ``decoder`` step by step until every sequence finished or ``max_step_num`` steps;
    returns (outputs, final states[, sequence lengths]), batch-major unless
    ``output_time_major``."""
    P = _P()
    inputs, states, finished = decoder.initialize(inits)
    cond = P.logical_not(P.all(finished))
    lengths = P.cast(P.zeros_like(finished), "int64")
    outputs = None
    step = 0
    step_tensor = P.full(shape=[1], fill_value=step, dtype="int64")
    while np.array(cond).item():
        step_out, next_states, next_inputs, next_finished = decoder.step(
            step_tensor, inputs, states, **kwargs)
        if not decoder.tracks_own_finished:
            next_finished = P.logical_or(next_finished, finished)
            P.assign(next_finished, finished)
            next_lengths = P.add(lengths, P.cast(P.logical_not(finished), lengths.dtype))
            if impute_finished:
                next_states = P.utils.map_structure(
                    lambda x, y: _keep_finished(x, y, finished), states, next_states)
        else:
            if not hasattr(next_states, "lengths"):
                warnings.warn("`next_states` has no `lengths` attribute, the returned "
                              "`sequence_lengths` would be all zeros.")
            next_lengths = getattr(next_states, "lengths", lengths)
        if step == 0:
            outputs = P.utils.map_structure(lambda x: _Steps(x), step_out)
        else:
            outputs = P.utils.map_structure(lambda x, arr: arr.append(x), step_out, outputs)
        inputs, states, finished, lengths = next_inputs, next_states, next_finished, next_lengths
        step_tensor = P.increment(x=step_tensor, value=1.0)
        step += 1
        cond = P.logical_not(P.all(finished))
        if max_step_num is not None and step > max_step_num:
            break
    final_outputs = P.utils.map_structure(lambda x: P.stack(x.array, axis=0), outputs)
    final_states = states
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = P.utils.map_structure(
            lambda x: P.transpose(x, [1, 0, *range(2, len(x.shape))]), final_outputs)
    return (final_outputs, final_states, lengths) if return_length else (final_outputs,
                                                                         final_states)


BeamSearchDecoder.__module__ = Decoder.__module__ = "paddle.nn.decode"
