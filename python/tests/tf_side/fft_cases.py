"""FFT cases built by the same code on both sides: `build(tf, arrays)` returns name -> tensor
(tf.signal's fft / ifft of ranks 1-3 on both complex dtypes, rfft / irfft of ranks 1-3 with
fft_length equal to, shorter and longer than the input, odd and even lengths, fftshift, and
gradients of real losses through each transform). Run as a script with TensorFlow's python
(args in.npz out.npz): values to out.npz, and a JSON line."""
import json

import numpy as np

from shared_cases_run import run_build

COMPLEX = {"complex64": "float32", "complex128": "float64"}
SHAPES = {1: (2, 7), 2: (2, 4, 6), 3: (2, 3, 4, 5)}
REAL_SHAPES = {1: (3, 8), 2: (2, 6, 8), 3: (2, 3, 4, 6)}
ODD_REAL_SHAPES = {1: (3, 9), 2: (2, 5, 7), 3: (1, 3, 5, 5)}
SUFFIX = {1: "", 2: "2d", 3: "3d"}


def make_arrays():
    rng = np.random.default_rng(8)
    arrays = {}
    for real in ("float32", "float64"):
        for rank, shape in SHAPES.items():
            for part in ("re", "im", "wr", "wi"):
                arrays[f"{part}{rank}_{real}"] = rng.uniform(-1, 1, shape).astype(real)
        for rank in (1, 2, 3):
            for tag, shapes in (("even", REAL_SHAPES), ("odd", ODD_REAL_SHAPES)):
                shape = shapes[rank]
                arrays[f"r{rank}_{tag}_{real}"] = rng.uniform(-1, 1, shape).astype(real)
                spectrum = shape[:-1] + (shape[-1] // 2 + 1,)
                for part in ("sre", "sim", "swr", "swi"):
                    arrays[f"{part}{rank}_{tag}_{real}"] = rng.uniform(-1, 1, spectrum).astype(real)
                arrays[f"w{rank}_{tag}_{real}"] = rng.uniform(-1, 1, shape).astype(real)
    return arrays


def _weighted(tf, z, wr, wi):
    return tf.reduce_sum(tf.real(z) * wr) + tf.reduce_sum(tf.imag(z) * wi)


def build(tf, arrays):
    out = {}
    for cdt, real in COMPLEX.items():
        for rank in (1, 2, 3):
            sfx = SUFFIX[rank]
            re, im = tf.constant(arrays[f"re{rank}_{real}"]), tf.constant(arrays[f"im{rank}_{real}"])
            wr, wi = tf.constant(arrays[f"wr{rank}_{real}"]), tf.constant(arrays[f"wi{rank}_{real}"])
            z = tf.complex(re, im)
            for fn in ("fft", "ifft"):
                y = getattr(tf.signal, fn + sfx)(z)
                out[f"{fn}{sfx}_{cdt}"] = y
                gre, gim = tf.gradients(_weighted(tf, y, wr, wi), [re, im])
                out[f"{fn}{sfx}_{cdt}_grad_re"], out[f"{fn}{sfx}_{cdt}_grad_im"] = gre, gim
            for tag in ("even", "odd"):
                r = tf.constant(arrays[f"r{rank}_{tag}_{real}"])
                n = arrays[f"r{rank}_{tag}_{real}"].shape[-1]
                spectrum = getattr(tf.signal, "rfft" + sfx)(r)
                out[f"rfft{sfx}_{tag}_{cdt}"] = spectrum
                out[f"roundtrip{sfx}_{tag}_{cdt}"] = getattr(tf.signal, "irfft" + sfx)(
                    spectrum, [*arrays[f"r{rank}_{tag}_{real}"].shape[-rank:]])
                inner = list(arrays[f"r{rank}_{tag}_{real}"].shape[-rank:])
                out[f"rfft{sfx}_shorter_{tag}_{cdt}"] = getattr(tf.signal, "rfft" + sfx)(r, inner[:-1] + [n - 3])
                out[f"rfft{sfx}_longer_{tag}_{cdt}"] = getattr(tf.signal, "rfft" + sfx)(r, [d + 2 for d in inner])
                sre = tf.constant(arrays[f"sre{rank}_{tag}_{real}"])
                sim = tf.constant(arrays[f"sim{rank}_{tag}_{real}"])
                s = tf.complex(sre, sim)
                out[f"irfft{sfx}_default_{tag}_{cdt}"] = getattr(tf.signal, "irfft" + sfx)(s)
                out[f"irfft{sfx}_{tag}_{cdt}"] = getattr(tf.signal, "irfft" + sfx)(s, inner)
                out[f"irfft{sfx}_shorter_{tag}_{cdt}"] = getattr(tf.signal, "irfft" + sfx)(s, inner[:-1] + [n - 4])
                out[f"irfft{sfx}_longer_{tag}_{cdt}"] = getattr(tf.signal, "irfft" + sfx)(s, [d + 3 for d in inner])
                if rank < 3:  # TensorFlow has no gradient for RFFT3D and IRFFT3D.
                    w = tf.constant(arrays[f"w{rank}_{tag}_{real}"])
                    swr = tf.constant(arrays[f"swr{rank}_{tag}_{real}"])
                    swi = tf.constant(arrays[f"swi{rank}_{tag}_{real}"])
                    out[f"rfft{sfx}_{tag}_{cdt}_grad"] = tf.gradients(_weighted(tf, spectrum, swr, swi), r)[0]
                    y = getattr(tf.signal, "irfft" + sfx)(s, inner)
                    gre, gim = tf.gradients(tf.reduce_sum(y * w), [sre, sim])
                    out[f"irfft{sfx}_{tag}_{cdt}_grad_re"], out[f"irfft{sfx}_{tag}_{cdt}_grad_im"] = gre, gim
        r = tf.constant(arrays[f"r2_odd_{real}"])
        out[f"fftshift_{cdt}"] = tf.signal.fftshift(r)
        out[f"ifftshift_{cdt}"] = tf.signal.ifftshift(r)
        out[f"fftshift_axes_{cdt}"] = tf.signal.fftshift(r, axes=[1, 2])
        out[f"ifftshift_axis_{cdt}"] = tf.signal.ifftshift(r, axes=-1)
    return out


def main():
    run_build(build)
    print(json.dumps({}))


if __name__ == "__main__":
    main()
