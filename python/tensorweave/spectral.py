"""tf.spectral: TF 1's older namespace of tf.signal's Fourier transforms (dct/idct, which
TF also lists there, are not implemented)."""
from tensorweave.signal import (fft, fft2d, fft3d, ifft, ifft2d, ifft3d, irfft, irfft2d, irfft3d,  # noqa: F401
                                rfft, rfft2d, rfft3d)
