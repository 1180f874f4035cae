"""The K-step MDP solver's inner loop as one compiled kernel (numba, the ``fast`` extra).

:func:`fused_steps` runs ``K`` steps of :class:`~paretosurf.problems.mdp.MDPGradientSolver`
for a batch of slots in one call: each step's policy from the logits, the soft values and the
occupancy (the linear solves of ``I - gamma P_pi``), the advantages, the gradient, and the
Adam (or SGD) update, with no NumPy call in between. :func:`fused_policy_gradients` is one
step's gradient alone (for the tests). Both reproduce the NumPy reference
(:meth:`MDPModel._policy_gradients <paretosurf.problems.mdp.model.MDPModel>` and
:class:`~paretosurf.solvers.StepRule`) operation for operation, in the same order, so that
the two agree to rounding: to the last bit on Deep Sea Treasure and Fishwood where NumPy's
``exp`` and ``log`` are the C library's (``make test`` pins that), within about 1e-15
(relative) where NumPy's own order cannot be followed (its SIMD ``exp``; several absorbing
states or dense transitions, whose sums NumPy leaves to ``einsum``/``matmul`` kernels):

* sums over actions add the actions in order, as ``_reduce_actions`` does; sums over states
  (the payoff's mean) follow NumPy's pairwise summation;
* the linear systems go through the very LAPACK routines the NumPy path calls (SciPy's
  ``dgbtrf``/``dgbtrs`` on the batch's banded matrix, ``dgetrf``/``dgetrs`` per slot), called
  from the kernel through the addresses that :mod:`scipy.linalg.cython_lapack` exports. So the
  factorizations are LAPACK's own, not a banded LU of ours; the addresses are handed to the
  kernel as arguments at each call (not baked into it), which keeps it cacheable on disk
  (``cache=True``: it compiles once per machine). On DST the banded LU is now most of a
  step: ``dgbtf2`` makes four BLAS calls per column, 1,152 columns for 16 slots. A banded
  LU written in the kernel (tried: partial pivoting within each slot's band, no BLAS calls)
  took about 0.7x of LAPACK's time there (0.56x-0.89x, a loaded 2-core machine), but would
  give up the last-bit agreement with the NumPy step.
* Adam's update is :class:`~paretosurf.solvers.StepRule`'s, term by term.

This module imports without numba (the package's doctests import every module); the kernels
then do not exist and :func:`require_numba` raises the ImportError that names the extra.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from paretosurf.problems.mdp.model import MDPModel

__all__ = [
    "FusedModel",
    "fused_policy_gradients",
    "fused_policy_iteration",
    "fused_steps",
    "numba_available",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

INSTALL_HINT = 'pip install "paretosurf[fast]"'

try:  # (the ``fast`` extra)
    import numba as _numba
    from llvmlite import ir as _ir
    from numba.core import types as _types
    from numba.extending import intrinsic as _intrinsic
except ImportError as _error:  # pragma: no cover - exercised where numba is missing
    _numba = None  # type: ignore[assignment]
    _IMPORT_ERROR: ImportError | None = _error
else:
    _IMPORT_ERROR = None


def numba_available() -> bool:
    """Whether numba imports (the fused kernel can run)."""
    return _numba is not None


def require_numba() -> None:
    """Raise an ImportError naming the ``fast`` extra when numba is not installed."""
    if _numba is None:
        cause = f" ({_IMPORT_ERROR})" if _IMPORT_ERROR is not None else ""
        raise ImportError(
            f'kernel="numba" needs numba (the "fast" extra): {INSTALL_HINT}; or use '
            f'kernel="numpy" (or "auto", which falls back to NumPy).{cause}'
        )


#: Solve modes of the kernel, as the NumPy step chooses its path (see ``_policy_gradients``).
BAND, LU_ONCE, LU_TWICE = 0, 1, 2

#: The LAPACK routines the kernel calls, in the order of :attr:`FusedModel.lapack`.
LAPACK_NAMES = ("dgbtrf", "dgbtrs", "dgetrf", "dgetrs")

_LAPACK_ADDRESSES: IntArray | None = None


def lapack_addresses() -> IntArray:
    """The addresses of SciPy's LAPACK routines (:data:`LAPACK_NAMES`), looked up once."""
    global _LAPACK_ADDRESSES
    if _LAPACK_ADDRESSES is None:
        require_numba()
        from numba.extending import get_cython_function_address

        _LAPACK_ADDRESSES = np.array(
            [get_cython_function_address("scipy.linalg.cython_lapack", n) for n in LAPACK_NAMES],
            dtype=np.int64,
        )
    return _LAPACK_ADDRESSES


@dataclass(frozen=True)
class FusedModel:
    """What the kernel needs of an :class:`~paretosurf.problems.mdp.model.MDPModel`, as flat
    arrays of fixed dtypes (one compiled specialization serves every MDP).

    Built by :meth:`of`, which takes the same solve path as the NumPy step would now (so a
    test that moves ``LU_MIN_STATES`` or ``_sparse`` moves both).
    """

    gamma: float
    beta: float
    factor: float
    log_ref: FloatArray  # (S, A)
    rho: FloatArray  # (S,)
    mode: int
    sparse: bool
    nz_sa: IntArray  # (nnz,) s * A + a of P's non-zeros, in np.nonzero's order
    nz_t: IntArray
    nz_p: FloatArray
    P: FloatArray  # (S, A, S)
    band_ints: IntArray  # kl, ku, ldab, n_core
    perm: IntArray
    sink: IntArray
    sa: IntArray
    coef: FloatArray
    pos: IntArray
    diag: IntArray
    sa12: IntArray
    coef12: FloatArray
    pos12: IntArray
    lapack: IntArray

    @classmethod
    def of(cls, model: MDPModel) -> FusedModel:
        """The kernel's view of ``model``."""
        from paretosurf.problems.mdp import model as mdp_model

        s_idx, a_idx, t_idx, p = model._nz
        band = model._band()
        if band is not None:
            mode = BAND
        elif model.n_states >= mdp_model.LU_MIN_STATES:
            mode = LU_ONCE
        else:
            mode = LU_TWICE
        i64 = np.int64
        empty_i, empty_f = np.zeros(0, dtype=i64), np.zeros(0)
        return cls(
            gamma=float(model.gamma),
            beta=float(model.beta),
            factor=float(model._factor),
            log_ref=np.ascontiguousarray(model._log_ref, dtype=np.float64),
            rho=np.ascontiguousarray(model.rho, dtype=np.float64),
            mode=mode,
            sparse=bool(model._sparse),
            nz_sa=np.ascontiguousarray(s_idx * model.n_actions + a_idx, dtype=i64),
            nz_t=np.ascontiguousarray(t_idx, dtype=i64),
            nz_p=np.ascontiguousarray(p, dtype=np.float64),
            P=np.ascontiguousarray(model.P, dtype=np.float64),
            band_ints=np.array(
                [band.kl, band.ku, band.ldab, band.n] if band is not None else [0, 0, 0, 0],
                dtype=i64,
            ),
            perm=empty_i if band is None else band.perm.astype(i64),
            sink=empty_i if band is None else band.sink.astype(i64),
            sa=empty_i if band is None else band._sa.astype(i64),
            coef=empty_f if band is None else band._coef.astype(np.float64),
            pos=empty_i if band is None else band._pos.astype(i64),
            diag=empty_i if band is None else band._diag.astype(i64),
            sa12=empty_i if band is None else band._sa12.astype(i64),
            coef12=empty_f if band is None else band._coef12.astype(np.float64),
            pos12=empty_i if band is None else band._pos12.astype(i64),
            lapack=lapack_addresses(),
        )

    def arguments(self) -> tuple[Any, ...]:
        """The model's part of the kernels' arguments, in their order."""
        return (
            self.gamma,
            self.beta,
            self.factor,
            self.log_ref,
            self.rho,
            self.mode,
            self.sparse,
            self.nz_sa,
            self.nz_t,
            self.nz_p,
            self.P,
            self.band_ints,
            self.perm,
            self.sink,
            self.sa,
            self.coef,
            self.pos,
            self.diag,
            self.sa12,
            self.coef12,
            self.pos12,
            self.lapack,
        )


def _check_info(info: int) -> None:
    """Raise NumPy's error for a singular system where LAPACK reports one (``info > 0``)."""
    if info != 0:
        raise np.linalg.LinAlgError("Singular matrix")


def fused_policy_gradients(model: MDPModel, logits: FloatArray, rewards: FloatArray) -> FloatArray:
    """One step's gradients (B, S, A) w.r.t. logits (B, S, A) of the objectives of rewards
    (B, S, A), one reward per slot: ``model._policy_gradients(logits, rewards[:, None])[:, 0]``
    computed by the kernel."""
    require_numba()
    theta = np.ascontiguousarray(logits, dtype=np.float64)
    r = np.ascontiguousarray(rewards, dtype=np.float64)
    grad = np.empty_like(theta)
    _check_info(_gradient_kernel(theta, r, grad, *FusedModel.of(model).arguments()))
    return grad


def fused_steps(
    model: MDPModel,
    theta: FloatArray,
    m: FloatArray,
    v: FloatArray,
    t: FloatArray,
    rewards: FloatArray,
    *,
    steps: int,
    adam: bool,
    lr: float,
    betas: tuple[float, float],
    eps: float,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``steps`` gradient steps (Adam, or SGD where ``adam`` is false) of every slot: logits
    ``theta`` (B, S, A), moments ``m``, ``v`` (B, S, A), step counts ``t`` (B,) (float), one
    reward (B, S, A) per slot. Returns new arrays ``(theta, m, v, t)``."""
    require_numba()
    out = [np.array(x, dtype=np.float64, order="C") for x in (theta, m, v, t)]
    r = np.ascontiguousarray(rewards, dtype=np.float64)
    info = _steps_kernel(
        out[0],
        out[1],
        out[2],
        out[3],
        r,
        int(steps),
        bool(adam),
        float(lr),
        float(betas[0]),
        float(betas[1]),
        float(eps),
        *FusedModel.of(model).arguments(),
    )
    _check_info(info)
    return out[0], out[1], out[2], out[3]


def fused_policy_iteration(
    model: MDPModel,
    rewards: FloatArray,
    log_pi0: FloatArray,
    *,
    tol: float,
    floor: float,
    max_iter: int,
) -> tuple[FloatArray, FloatArray, IntArray, FloatArray]:
    """Soft policy iteration of every slot in one compiled call, and the objectives of the
    policies it ends at: ``soft_policy_iteration(model, rewards, log_pi0, ...)`` followed by
    ``model._objectives_of(pi)``, for a model whose transitions are dense (the exact
    solver's path), to rounding.

    Returns ``(pi, log_pi, iters, objectives)``; raises the NumPy path's RuntimeError where a
    slot does not converge in ``max_iter`` iterations, and ``LinAlgError`` on a singular
    system.
    """
    require_numba()
    log_pi = np.array(log_pi0, dtype=np.float64, order="C")
    pi = np.empty_like(log_pi)
    r = np.ascontiguousarray(rewards, dtype=np.float64)
    batch = log_pi.shape[0]
    iters = np.zeros(batch, dtype=np.int64)
    deltas = np.zeros(batch)
    objectives = np.empty((batch, model.R.shape[0]))
    fused = FusedModel.of(model)
    info = _policy_iteration_kernel(
        log_pi,
        pi,
        r,
        np.ascontiguousarray(model.R, dtype=np.float64),
        objectives,
        iters,
        deltas,
        float(tol),
        float(floor),
        int(max_iter),
        fused.gamma,
        fused.beta,
        fused.factor,
        fused.log_ref,
        fused.rho,
        fused.P,
        fused.sparse,
        fused.nz_sa,
        fused.nz_t,
        fused.nz_p,
        fused.lapack,
    )
    if info < 0:
        raise RuntimeError(
            f"soft policy iteration did not converge to a policy change <= {tol:g} in "
            f"{max_iter} iterations (largest change {float(np.max(deltas)):.3g}); "
            "check that gamma < 1 and the rewards are finite and moderate"
        )
    _check_info(info)
    return pi, log_pi, iters, objectives


# --------------------------------------------------------------------------------- kernels
if _numba is not None:

    def _lapack_typing(typingctx: Any, address: Any, pointers: Any) -> Any:
        """Call the LAPACK routine at ``address`` (an integer) with the arguments
        ``pointers`` (a tuple of addresses: LAPACK takes every argument by reference)."""
        if not isinstance(address, _types.Integer) or not isinstance(pointers, _types.UniTuple):
            return None
        count = len(pointers)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            byte_ptr = _ir.IntType(8).as_pointer()
            fnty = _ir.FunctionType(_ir.VoidType(), [byte_ptr] * count)
            fn = builder.inttoptr(args[0], fnty.as_pointer())
            ptrs = [
                builder.inttoptr(builder.extract_value(args[1], i), byte_ptr) for i in range(count)
            ]
            builder.call(fn, ptrs)
            return context.get_dummy_value()

        return _types.void(address, pointers), codegen

    _lapack_call: Any = _intrinsic(_lapack_typing)

    _jit = _numba.njit(cache=True, nogil=True)

    @_jit
    def _address(x: Any) -> Any:  # pragma: no cover - compiled
        """The address of an array's data, as a signed integer (all of LAPACK's arguments)."""
        return np.int64(x.ctypes.data)

    @_jit
    def _sum_actions(x: Any) -> float:  # pragma: no cover - compiled
        """``_reduce_actions(x, np.add)`` of one state's row: in order up to 8 actions, NumPy's
        pairwise summation above."""
        n = x.shape[0]
        if n <= 8:
            acc = x[0]
            for i in range(1, n):
                acc += x[i]
            return acc
        return _pairwise(x, 0, n)

    @_jit
    def _block_sum(x: Any, start: int, n: int) -> float:  # pragma: no cover - compiled
        """NumPy's sum of a block of at most 128 values: in order below 8, else in 8
        interleaved partial sums."""
        if n < 8:
            res = 0.0
            for i in range(n):
                res += x[start + i]
            return res
        r0, r1, r2, r3 = x[start], x[start + 1], x[start + 2], x[start + 3]
        r4, r5, r6, r7 = x[start + 4], x[start + 5], x[start + 6], x[start + 7]
        i = 8
        while i < n - (n % 8):
            j = start + i
            r0 += x[j]
            r1 += x[j + 1]
            r2 += x[j + 2]
            r3 += x[j + 3]
            r4 += x[j + 4]
            r5 += x[j + 5]
            r6 += x[j + 6]
            r7 += x[j + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += x[start + i]
            i += 1
        return res

    @_jit
    def _pairwise(x: Any, start: int, n: int) -> float:  # pragma: no cover - compiled
        """NumPy's pairwise sum of ``x[start:start + n]`` (``np.add.reduce``'s order): blocks
        of at most 128 values, halves (rounded down to a multiple of 8) added recursively.
        The recursion runs on an explicit stack: numba's on-disk cache does not reload
        self-recursive functions (the reloaded call jumps to address 0)."""
        if n <= 128:
            return _block_sum(x, start, n)
        depth = 64
        starts = np.empty(depth, dtype=np.int64)
        sizes = np.empty(depth, dtype=np.int64)
        left = np.empty(depth)  # a node's left half's sum, once known
        done = np.zeros(depth, dtype=np.bool_)  # whether it is
        top = 0
        starts[0], sizes[0] = start, n
        while True:
            size = sizes[top]
            if size > 128 and not done[top]:  # descend into the left half
                half = size // 2
                half -= half % 8
                starts[top + 1], sizes[top + 1], done[top + 1] = starts[top], half, False
                top += 1
                continue
            value = _block_sum(x, starts[top], size)
            # hand the value up: a left half starts its sibling, a right half completes
            while True:
                if top == 0:
                    return value
                parent = top - 1
                half = sizes[parent] // 2
                half -= half % 8
                if not done[parent]:
                    left[parent], done[parent] = value, True
                    starts[top], sizes[top] = starts[parent] + half, sizes[parent] - half
                    done[top] = False
                    break
                value = left[parent] + value
                top = parent

    @_jit
    def _einsum_dot(x: Any, y: Any, start: int, n: int) -> float:  # pragma: no cover
        """``sum_i x[i] * y[start + i]`` in the order of ``np.einsum``'s contraction of two
        contiguous operands: two lanes, four vectors a turn added from the last, the lanes
        added at the end."""
        acc0 = 0.0
        acc1 = 0.0
        i = 0
        while n - i >= 8:
            for k in range(3, -1, -1):
                j = i + 2 * k
                acc0 = x[j] * y[start + j] + acc0
                acc1 = x[j + 1] * y[start + j + 1] + acc1
            i += 8
        while i < n:
            acc0 = x[i] * y[start + i] + acc0
            if i + 1 < n:
                acc1 = x[i + 1] * y[start + i + 1] + acc1
            i += 2
        return acc0 + acc1

    @_jit
    def _log_softmax_row(x: Any, log_out: Any, p_out: Any, row: Any) -> None:  # pragma: no cover
        """``_log_softmax`` of one state's row ``x`` into ``log_out`` (which may be ``x``) and
        its exponential into ``p_out``; ``row`` is scratch of the row's length."""
        n = x.shape[0]
        top = x[0]
        for a in range(1, n):
            top = max(top, x[a])
        for a in range(n):
            row[a] = math.exp(x[a] - top)
        lse = math.log(_sum_actions(row))
        for a in range(n):
            lp = (x[a] - top) - lse
            log_out[a] = lp
            p_out[a] = math.exp(lp)

    @_jit
    def _flow_matrix(  # pragma: no cover - compiled
        pi: Any, P: Any, gamma: float, flow: Any, transposed: bool
    ) -> None:
        """``I - gamma P_pi`` of one policy (S, A) into ``flow`` (S * S) in column-major
        order, or in row-major order (its transpose for LAPACK) where ``transposed``."""
        n, n_actions = pi.shape
        for s in range(n):
            for t in range(n):
                acc = pi[s, 0] * P[s, 0, t]
                for a in range(1, n_actions):
                    acc += pi[s, a] * P[s, a, t]
                acc *= -gamma
                if s == t:
                    acc += 1.0
                if transposed:
                    flow[s * n + t] = acc
                else:
                    flow[t * n + s] = acc

    @_jit
    def _expected_next(  # pragma: no cover - compiled
        u: Any, out: Any, sparse: bool, nz_sa: Any, nz_t: Any, nz_p: Any, P: Any
    ) -> None:
        """``(P u)(s, a)`` of values ``u`` (S,) into ``out`` (S, A), from the non-zeros of
        ``P`` where ``sparse`` (``_expected_next``'s order)."""
        n_states, n_actions = out.shape
        if sparse:
            out_flat = out.reshape(n_states * n_actions)
            out_flat[:] = 0.0
            for k in range(nz_sa.shape[0]):
                out_flat[nz_sa[k]] += u[nz_t[k]] * nz_p[k]
        else:
            for s in range(n_states):
                for a in range(n_actions):
                    acc = 0.0
                    for t in range(n_states):
                        acc += P[s, a, t] * u[t]
                    out[s, a] = acc

    @_jit
    def _centered_payoff(  # pragma: no cover - compiled
        pi: Any, log_pi: Any, rewards: Any, beta: float, log_ref: Any, row: Any, c: Any
    ) -> float:
        """``_centered_payoff`` of one policy and one reward (S, A): the per-state payoff less
        its mean into ``c``; returns the mean."""
        n_states, n_actions = pi.shape
        for s in range(n_states):
            for a in range(n_actions):
                p = pi[s, a]
                row[a] = p * (log_pi[s, a] - log_ref[s, a]) if p > 0 else 0.0
            kl = _sum_actions(row)
            for a in range(n_actions):
                row[a] = pi[s, a] * rewards[s, a]
            c[s] = _sum_actions(row) - beta * kl
        mean = _pairwise(c, 0, n_states) / n_states
        for s in range(n_states):
            c[s] = c[s] - mean
        return mean

    @_jit
    def _gradient(  # pragma: no cover - compiled
        theta: Any,
        rewards: Any,
        grad: Any,
        work: Any,
        ints: Any,
        gamma: float,
        beta: float,
        factor: float,
        log_ref: Any,
        rho: Any,
        mode: int,
        sparse: bool,
        nz_sa: Any,
        nz_t: Any,
        nz_p: Any,
        P: Any,
        band_ints: Any,
        perm: Any,
        sink: Any,
        sa: Any,
        coef: Any,
        pos: Any,
        diag: Any,
        sa12: Any,
        coef12: Any,
        pos12: Any,
        lapack: Any,
    ) -> int:
        """One step's gradient into ``grad``; ``work`` is the workspace of :func:`_workspace`
        and ``ints`` an int32 scratch of 16 (LAPACK's integer arguments). Returns LAPACK's
        ``info`` (0: solved)."""
        batch, n_states, n_actions = theta.shape
        log_pi, pi, row, c, mean, u, d_u, vals, ab, a12, bvec, rvec, flow, piv, trans = work
        one_minus_gamma = 1.0 - gamma
        # (state, action) pairs as one index, as the NumPy step's index lists have them
        pi_flat = pi.reshape((batch, n_states * n_actions))
        a12_flat = a12.reshape((batch, a12.shape[1] * a12.shape[2]))
        # policy, KL and payoff (``_log_softmax``, ``_centered_payoff``): the right-hand side
        for b in range(batch):
            for s in range(n_states):
                _log_softmax_row(theta[b, s], log_pi[b, s], pi[b, s], row)
            mean[b] = _centered_payoff(pi[b], log_pi[b], rewards[b], beta, log_ref, row, c[b])
        info = 0
        p_ints = _address(ints)
        p_n, p_kl, p_ku, p_nrhs, p_ldab, p_ldb, p_info = (
            p_ints,
            p_ints + 4,
            p_ints + 8,
            p_ints + 12,
            p_ints + 16,
            p_ints + 20,
            p_ints + 24,
        )
        p_trans = _address(trans)
        if mode == 0:  # every slot's core system in one banded matrix (``_BandSystems``)
            kl, ku, ldab, n = band_ints[0], band_ints[1], band_ints[2], band_ints[3]
            size, n_sink = n * ldab, sink.shape[0]
            rows = batch * n
            ab[: batch * size] = 0.0
            for b in range(batch):
                base = b * size
                for k in range(sa.shape[0]):
                    ab[base + pos[k]] += pi_flat[b, sa[k]] * coef[k]
                for i in range(n):
                    ab[base + diag[i]] += 1.0
                for i in range(n):
                    bvec[b * n + i] = c[b, perm[i]]
                    rvec[b * n + i] = rho[perm[i]]
                if n_sink:
                    a12_flat[b] = 0.0
                    for k in range(sa12.shape[0]):
                        a12_flat[b, pos12[k]] += pi_flat[b, sa12[k]] * coef12[k]
                    for j in range(n_sink):
                        x2 = c[b, sink[j]] / one_minus_gamma
                        vals[j] = x2
                        u[b, sink[j]] = x2
                    for i in range(n):
                        acc = 0.0
                        for j in range(n_sink):
                            acc += a12[b, i, j] * vals[j]
                        bvec[b * n + i] = bvec[b * n + i] - acc
            ints[0], ints[1], ints[2], ints[3], ints[4], ints[5] = rows, kl, ku, 1, ldab, rows
            _lapack_call(
                lapack[0], (p_n, p_n, p_kl, p_ku, _address(ab), p_ldab, _address(piv), p_info)
            )
            info = ints[6]
            if info != 0:
                return info
            for which in range(2):  # values, then (transposed) the occupancy
                trans[0] = 78 if which == 0 else 84  # "N", "T"
                vec = bvec if which == 0 else rvec
                _lapack_call(
                    lapack[1],
                    (
                        p_trans,
                        p_n,
                        p_kl,
                        p_ku,
                        p_nrhs,
                        _address(ab),
                        p_ldab,
                        _address(piv),
                        _address(vec),
                        p_ldb,
                        p_info,
                    ),
                )
            for b in range(batch):
                for i in range(n):
                    u[b, perm[i]] = bvec[b * n + i]
                    d_u[b, perm[i]] = rvec[b * n + i]
                for j in range(n_sink):
                    if n_sink == 1:  # ``einsum``'s order where its operand is contiguous
                        acc = _einsum_dot(a12[b, :, 0], rvec, b * n, n)
                    else:
                        acc = 0.0
                        for i in range(n):
                            acc += a12[b, i, j] * rvec[b * n + i]
                    d_u[b, sink[j]] = (rho[sink[j]] - acc) / one_minus_gamma
        else:  # dense: one LU per slot (``_lu_solve_both``), or one per system (small)
            n = n_states
            ints[0], ints[3] = n, 1
            for b in range(batch):
                for twice in range(2 if mode == 2 else 1):
                    # ``I - gamma P_pi`` (its transpose for the second factorization of the
                    # small systems)
                    _flow_matrix(pi[b], P, gamma, flow, twice == 1)
                    _lapack_call(lapack[2], (p_n, p_n, _address(flow), p_n, _address(piv), p_info))
                    info = ints[6]
                    if info != 0:
                        return info
                    for which in range(2 if mode == 1 else 1):
                        if twice == 0 and which == 0:
                            trans[0] = 78
                            for s in range(n):
                                bvec[s] = c[b, s]
                            vec = bvec
                        else:
                            trans[0] = 84 if mode == 1 else 78
                            for s in range(n):
                                rvec[s] = rho[s]
                            vec = rvec
                        _lapack_call(
                            lapack[3],
                            (
                                p_trans,
                                p_n,
                                p_nrhs,
                                _address(flow),
                                p_n,
                                _address(piv),
                                _address(vec),
                                p_n,
                                p_info,
                            ),
                        )
                for s in range(n):
                    u[b, s] = bvec[s]
                    d_u[b, s] = rvec[s]
        # values, advantages, gradient (the end of ``_policy_gradients``); ``grad`` holds
        # P V until the last loop turns it into the gradient
        for b in range(batch):
            shift = mean[b] / one_minus_gamma
            for s in range(n_states):
                u[b, s] = u[b, s] + shift  # now V
            _expected_next(u[b], grad[b], sparse, nz_sa, nz_t, nz_p, P)
            for s in range(n_states):
                scale = -factor * d_u[b, s]
                for a in range(n_actions):
                    q = rewards[b, s, a] + gamma * grad[b, s, a]
                    adv = (q - beta * (log_pi[b, s, a] - log_ref[s, a])) - u[b, s]
                    grad[b, s, a] = scale * pi[b, s, a] * adv
        return info

    @_jit
    def _workspace(
        batch: int, n_states: int, n_actions: int, band_ints: Any, n_sink: int
    ) -> Any:  # pragma: no cover - compiled
        """The arrays :func:`_gradient` works in (allocated once per call of a kernel)."""
        n, ldab = band_ints[3], band_ints[2]
        long = max(batch * n, n_states)
        return (
            np.empty((batch, n_states, n_actions)),  # log_pi
            np.empty((batch, n_states, n_actions)),  # pi
            np.empty(n_actions),  # row
            np.empty((batch, n_states)),  # c (the payoff, then the right-hand side)
            np.empty(batch),  # mean
            np.empty((batch, n_states)),  # u (then V)
            np.empty((batch, n_states)),  # d_u
            np.empty(max(n_actions, n_sink, 1)),  # vals
            np.empty(batch * n * ldab),  # ab
            np.empty((batch, n, n_sink)),  # a12
            np.empty(long),  # bvec
            np.empty(long),  # rvec
            np.empty(n_states * n_states),  # flow
            np.empty(long, dtype=np.int32),  # piv
            np.empty(1, dtype=np.uint8),  # trans
        )

    @_jit
    def _gradient_kernel(  # pragma: no cover - compiled
        theta: Any,
        rewards: Any,
        grad: Any,
        gamma: float,
        beta: float,
        factor: float,
        log_ref: Any,
        rho: Any,
        mode: int,
        sparse: bool,
        nz_sa: Any,
        nz_t: Any,
        nz_p: Any,
        P: Any,
        band_ints: Any,
        perm: Any,
        sink: Any,
        sa: Any,
        coef: Any,
        pos: Any,
        diag: Any,
        sa12: Any,
        coef12: Any,
        pos12: Any,
        lapack: Any,
    ) -> int:
        batch, n_states, n_actions = theta.shape
        work = _workspace(batch, n_states, n_actions, band_ints, sink.shape[0])
        ints = np.zeros(16, dtype=np.int32)
        return _gradient(
            theta,
            rewards,
            grad,
            work,
            ints,
            gamma,
            beta,
            factor,
            log_ref,
            rho,
            mode,
            sparse,
            nz_sa,
            nz_t,
            nz_p,
            P,
            band_ints,
            perm,
            sink,
            sa,
            coef,
            pos,
            diag,
            sa12,
            coef12,
            pos12,
            lapack,
        )

    @_jit
    def _steps_kernel(  # pragma: no cover - compiled
        theta: Any,
        m: Any,
        v: Any,
        t: Any,
        rewards: Any,
        steps: int,
        adam: bool,
        lr: float,
        b1: float,
        b2: float,
        eps: float,
        gamma: float,
        beta: float,
        factor: float,
        log_ref: Any,
        rho: Any,
        mode: int,
        sparse: bool,
        nz_sa: Any,
        nz_t: Any,
        nz_p: Any,
        P: Any,
        band_ints: Any,
        perm: Any,
        sink: Any,
        sa: Any,
        coef: Any,
        pos: Any,
        diag: Any,
        sa12: Any,
        coef12: Any,
        pos12: Any,
        lapack: Any,
    ) -> int:
        batch, n_states, n_actions = theta.shape
        work = _workspace(batch, n_states, n_actions, band_ints, sink.shape[0])
        ints = np.zeros(16, dtype=np.int32)
        grad = np.empty_like(theta)
        for _ in range(steps):
            info = _gradient(
                theta,
                rewards,
                grad,
                work,
                ints,
                gamma,
                beta,
                factor,
                log_ref,
                rho,
                mode,
                sparse,
                nz_sa,
                nz_t,
                nz_p,
                P,
                band_ints,
                perm,
                sink,
                sa,
                coef,
                pos,
                diag,
                sa12,
                coef12,
                pos12,
                lapack,
            )
            if info != 0:
                return info
            # ``StepRule.apply``, in its order of operations
            for b in range(batch):
                if adam:
                    t[b] += 1.0
                    correct1 = 1.0 - b1 ** t[b]
                    correct2 = 1.0 - b2 ** t[b]
                for s in range(n_states):
                    for a in range(n_actions):
                        g = grad[b, s, a]
                        if adam:
                            mm = b1 * m[b, s, a] + (1.0 - b1) * g
                            vv = b2 * v[b, s, a] + (1.0 - b2) * g * g
                            m[b, s, a] = mm
                            v[b, s, a] = vv
                            step = (mm / correct1) / (math.sqrt(vv / correct2) + eps)
                            theta[b, s, a] = theta[b, s, a] - lr * step
                        else:
                            theta[b, s, a] = theta[b, s, a] - lr * g
        return 0

    @_jit
    def _dense_solve(  # pragma: no cover - compiled
        pi: Any,
        rhs: Any,
        out: Any,
        gamma: float,
        P: Any,
        flow: Any,
        piv: Any,
        ints: Any,
        trans: Any,
        lapack: Any,
        factor_again: bool,
    ) -> int:
        """``out = (I - gamma P_pi)^-1 rhs`` for one policy ``pi`` (S, A) by LAPACK's
        ``dgetrf``/``dgetrs`` (``np.linalg.solve``'s routines), factorizing ``I - gamma P_pi``
        (column-major) first where ``factor_again``. Returns LAPACK's ``info``."""
        n = pi.shape[0]
        p_ints = _address(ints)
        p_n, p_nrhs, p_info = p_ints, p_ints + 12, p_ints + 24
        ints[0], ints[3] = n, 1
        if factor_again:
            _flow_matrix(pi, P, gamma, flow, False)
            _lapack_call(lapack[2], (p_n, p_n, _address(flow), p_n, _address(piv), p_info))
            if ints[6] != 0:
                return ints[6]
        for s in range(n):
            out[s] = rhs[s]
        trans[0] = 78  # "N"
        _lapack_call(
            lapack[3],
            (
                _address(trans),
                p_n,
                p_nrhs,
                _address(flow),
                p_n,
                _address(piv),
                _address(out),
                p_n,
                p_info,
            ),
        )
        return ints[6]

    @_jit
    def _policy_iteration_kernel(  # pragma: no cover - compiled
        log_pi: Any,
        pi: Any,
        rewards: Any,
        R: Any,
        objectives: Any,
        iters: Any,
        deltas: Any,
        tol: float,
        floor: float,
        max_iter: int,
        gamma: float,
        beta: float,
        factor: float,
        log_ref: Any,
        rho: Any,
        P: Any,
        sparse: bool,
        nz_sa: Any,
        nz_t: Any,
        nz_p: Any,
        lapack: Any,
    ) -> int:
        """``soft_policy_iteration`` of each slot from ``log_pi`` (updated in place, ``pi``
        with it), then the objectives of its policy (``_objectives_of``). Returns 0, LAPACK's
        ``info`` where a system is singular, or -1 where a slot did not converge (its last
        change in ``deltas``)."""
        batch, n_states, n_actions = log_pi.shape
        n_objectives = R.shape[0]
        row = np.empty(n_actions)
        c = np.empty(n_states)
        u = np.empty(n_states)
        flow = np.empty(n_states * n_states)
        piv = np.empty(n_states, dtype=np.int32)
        ints = np.zeros(16, dtype=np.int32)
        trans = np.empty(1, dtype=np.uint8)
        new_log = np.empty((n_states, n_actions))
        next_u = np.empty((n_states, n_actions))
        new_p = np.empty(n_actions)
        safe_log = np.empty((n_states, n_actions))
        one_minus_gamma = 1.0 - gamma
        for b in range(batch):
            for s in range(n_states):
                for a in range(n_actions):
                    pi[b, s, a] = math.exp(log_pi[b, s, a])
            previous = np.inf
            converged = False
            for _ in range(max_iter):
                _centered_payoff(pi[b], log_pi[b], rewards[b], beta, log_ref, row, c)
                info = _dense_solve(pi[b], c, u, gamma, P, flow, piv, ints, trans, lapack, True)
                if info != 0:
                    return info
                # q = r + gamma P u; the new policy its (reference-weighted) softmax
                _expected_next(u, next_u, sparse, nz_sa, nz_t, nz_p, P)
                delta = 0.0
                for s in range(n_states):
                    for a in range(n_actions):
                        q = rewards[b, s, a] + gamma * next_u[s, a]
                        new_log[s, a] = log_ref[s, a] + q / beta
                    _log_softmax_row(new_log[s], new_log[s], new_p, row)
                    for a in range(n_actions):
                        delta = max(delta, abs(new_p[a] - pi[b, s, a]))
                        log_pi[b, s, a] = new_log[s, a]
                        pi[b, s, a] = new_p[a]
                iters[b] += 1
                stalled = delta <= floor and delta > 0.25 * previous
                previous = delta
                deltas[b] = delta
                if delta <= tol or stalled:
                    converged = True
                    break
            if not converged:
                return -1
            # the objectives of the policy (``_objectives_of``: the log of ``pi`` itself)
            for s in range(n_states):
                for a in range(n_actions):
                    p = pi[b, s, a]
                    safe_log[s, a] = math.log(p) if p > 0 else -np.inf
            for m in range(n_objectives):
                mean = _centered_payoff(pi[b], safe_log, R[m], beta, log_ref, row, c)
                info = _dense_solve(pi[b], c, u, gamma, P, flow, piv, ints, trans, lapack, m == 0)
                if info != 0:
                    return info
                acc = 0.0
                for s in range(n_states):
                    acc += (u[s] + mean / one_minus_gamma) * rho[s]
                objectives[b, m] = -factor * acc
        return 0
