# source: https://github.com/rafael-fuente/diffractsim/issues/60
# expect: JAX702
# line: 29
# observed: jax 0.10.2 CPU: the field requested as complex128 is complex64 (UserWarning at line 29: truncated to complex64), and after 2 m of angular-spectrum propagation of a 0.5 mm aperture the intensity differs from the NumPy float64 run by a relative error of 0.29 (kz * z is ~2e7 rad, beyond float32's phase resolution); with x64 enabled (through the environment) the same run matches NumPy to 7.5e-16
# batch: 9
import numpy as np

import jax
import jax.numpy as jnp

mm = 1e-3
nm = 1e-9


class Backend:
    def __init__(self, module):
        self.module = module

    def __getattr__(self, name):
        return getattr(self.module, name)


class MonochromaticField:
    def __init__(self, bd, wavelength, extent_x, extent_y, Nx, Ny):
        self.bd = bd
        self.x = bd.linspace(-extent_x / 2, extent_x / 2, Nx)
        self.y = bd.linspace(-extent_y / 2, extent_y / 2, Ny)
        self.xx, self.yy = bd.meshgrid(self.x, self.y)
        self.E = bd.ones((Ny, Nx), dtype=bd.complex128)
        self.λ = wavelength
        self.dx = float(self.x[1] - self.x[0])
        self.dy = float(self.y[1] - self.y[0])

    def add_circular_slit(self, R):
        self.E = self.bd.where(self.xx**2 + self.yy**2 < R**2, self.E, 0)

    def propagate(self, z):
        bd = self.bd
        Ny, Nx = self.E.shape
        fx = bd.fft.fftfreq(Nx, d=self.dx)
        fy = bd.fft.fftfreq(Ny, d=self.dy)
        fxx, fyy = bd.meshgrid(fx, fy)
        argument = (2 * bd.pi) ** 2 * ((1.0 / self.λ) ** 2 - fxx**2 - fyy**2)
        kz = bd.sqrt(bd.abs(argument))
        self.E = bd.fft.ifft2(bd.fft.fft2(self.E) * bd.exp(1j * kz * z))
        return self

    def get_intensity(self):
        return self.bd.real(self.E * self.bd.conj(self.E))


def simulate(module):
    F = MonochromaticField(Backend(module), wavelength=632.8 * nm, extent_x=5.6 * mm, extent_y=5.6 * mm,
                           Nx=256, Ny=256)
    F.add_circular_slit(R=0.5 * mm)
    F.propagate(2.0)
    return F.E.dtype, np.asarray(F.get_intensity())


dtype_np, I_np = simulate(np)
dtype_jax, I_jax = simulate(jnp)
print(dtype_np, dtype_jax)
print("relative error:", float(np.abs(I_jax - I_np).max() / np.abs(I_np).max()))
