"""Type stub of hashbench (written by scripts/stubs.py from the catalog: do not edit)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

def methods() -> List[Dict[str, Any]]: ...
def set_threads(n: int) -> None: ...
def threads() -> int: ...
def pack(bits: Any) -> np.ndarray: ...
def unpack(codes: Any, n_bits: int) -> np.ndarray: ...
def evaluate(
    database: Any,
    queries: Any,
    n_bits: int,
    metrics: Sequence[Dict[str, Any]],
    *,
    labels: Optional[Tuple[Any, Any]] = ...,
    relevance: Any = ...,
    neighbours: Any = ...,
    tie_seed: int = ...,
    bit_weights: Any = ...,
) -> Dict[str, Any]: ...
def search(database: Any, queries: Any, n_bits: int, k: int) -> Tuple[np.ndarray, np.ndarray]: ...
def run(spec: Any, profile: Optional[str] = ..., *, root: Any = ..., results: Any = ..., force: bool = ...) -> Any: ...
def split(spec: Any, profile: Optional[str] = ..., *, root: Any = ..., results: Any = ...) -> List[Dict[str, Any]]: ...
def score(
    spec: Any,
    codes: Dict[str, Dict[Tuple[int, int], Tuple[Any, Any, Dict[str, Any]]]],
    profile: Optional[str] = ...,
    *,
    root: Any = ...,
    results: Any = ...,
    folder: Any = ...,
) -> Any: ...

class Gram:
    K: np.ndarray
    rows: np.ndarray
    def __init__(self, K: Any, rows: Any) -> None: ...

class HashingMethod:
    method: str
    n_bits: int
    seed: int
    target: Optional[Dict[str, Any]]
    params: Dict[str, Any]
    def __init__(self, n_bits: int = ..., seed: int = ..., target: Optional[Dict[str, Any]] = ..., **params: Any) -> None: ...
    def get_params(self, deep: bool = ...) -> Dict[str, Any]: ...
    def set_params(self, **params: Any) -> "HashingMethod": ...
    def fit(self, X: Any, y: Any = ...) -> "HashingMethod": ...
    def transform(self, X: Any) -> np.ndarray: ...
    def fit_transform(self, X: Any, y: Any = ...) -> np.ndarray: ...
    @property
    def bit_weights_(self) -> Optional[np.ndarray]: ...

class LSH(HashingMethod):
    """LSH (spec name ``lsh``), from Charikar, "Similarity Estimation Techniques from Rounding Algorithms", STOC 2002."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, through: str = 'mean') -> None: ...

class SH(HashingMethod):
    """SH (spec name ``spectral``), from Weiss, Torralba, Fergus, "Spectral Hashing", NIPS 2008."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None) -> None: ...

class SIKH(HashingMethod):
    """SIKH (spec name ``sikh``), from Raginsky, Lazebnik, "Locality-Sensitive Binary Codes from Shift-Invariant Kernels", NIPS 2009."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, width: Any = ...) -> None: ...

class KLSH(HashingMethod):
    """KLSH (spec name ``klsh``), from Kulis, Grauman, "Kernelized Locality-Sensitive Hashing", IEEE TPAMI 34(6), 2012."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, **params: Any) -> None: ...

class BSSC(HashingMethod):
    """BSSC (spec name ``bssc``), from Shakhnarovich, "Learning Task-Specific Similarity", PhD thesis, MIT 2005."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, candidates: int = 50) -> None: ...

class PCAH(HashingMethod):
    """PCAH (spec name ``pcah``), from Wang, Kumar, Chang, "Sequential Projection Learning for Hashing with Compact Codes", ICML 2010 (its PCA baseline)."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, eta: float = 0.005) -> None: ...

class S3PLH(HashingMethod):
    """S3PLH (spec name ``s3plh``), from Wang, Kumar, Chang, "Sequential Projection Learning for Hashing with Compact Codes", ICML 2010."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, eta: float = 0.005) -> None: ...

class USPLH(HashingMethod):
    """USPLH (spec name ``usplh``), from Wang, Kumar, Chang, "Sequential Projection Learning for Hashing with Compact Codes", ICML 2010."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, decay: float = 0.125, eta: float = 1.0, form: str = 'release', region: int = 2000) -> None: ...

class OKH(HashingMethod):
    """OKH (spec name ``okh``), from He, Liu, Chang, "Scalable Similarity Search with Optimized Kernel Hashing", KDD 2010."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, **params: Any) -> None: ...

class LAMP(HashingMethod):
    """LAMP (spec name ``lamp``), from Mu, Shen, Yan, "Weakly-Supervised Hashing in Kernel Space", CVPR 2010."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, **params: Any) -> None: ...

class RBMs(HashingMethod):
    """RBMs (spec name ``rbm``), from Hinton, Salakhutdinov, "Reducing the Dimensionality of Data with Neural Networks", Science 2006."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, batch: int = 100, epochs: int = 5, fine_tune_rate: float = 0.01, fine_tune_steps: int = 50, hidden: Any = ..., learning_rate: float = 0.1) -> None: ...

class ITQ(HashingMethod):
    """ITQ (spec name ``itq``), from Gong, Lazebnik, "Iterative Quantization: A Procrustean Approach to Learning Binary Codes", CVPR 2011."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, iterations: int = 50) -> None: ...

class SH_ENCW(HashingMethod):
    """SH_ENCW (spec name ``sh-encw``), from Zhu, Huang, Cheng, Cui, Shen, "Sparse Hashing for Fast Multimedia Search", ACM TOIS 31(2), 2013."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, cv_items: Any = ..., hyperparameters: str = 'cross-validate', max_iterations: int = 30, neighbours: int = 25, penalty_scale: str = 'all-zero', sigma: str = 'mean-knn', tolerance: float = 1e-05) -> None: ...

class SH_SVM(HashingMethod):
    """SH_SVM (spec name ``sh-svm``), from Zhu, Huang, Cheng, Cui, Shen, "Sparse Hashing for Fast Multimedia Search", ACM TOIS 31(2), 2013."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, cv_items: Any = ..., hyperparameters: str = 'cross-validate', max_iterations: int = 30, neighbours: int = 25, penalty_scale: str = 'all-zero', sigma: str = 'mean-knn', tolerance: float = 1e-05) -> None: ...

class STH(HashingMethod):
    """STH (spec name ``sth``), from Zhang, Wang, Cai, Lu, "Self-Taught Hashing for Fast Similarity Search", SIGIR 2010."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, neighbours: int = 25) -> None: ...

class LSI(HashingMethod):
    """LSI (spec name ``lsi``), from Deerwester, Dumais, Furnas, Landauer, Harshman, "Indexing by Latent Semantic Analysis", JASIS 41(6), 1990."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None) -> None: ...

class LCH(HashingMethod):
    """LCH (spec name ``lch``), from Zhang, Wang, Cai, Lu, "Laplacian Co-Hashing of Terms and Documents", ECIR 2010."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None) -> None: ...

class MLH(HashingMethod):
    """MLH (spec name ``mlh``), from Norouzi, Fleet, "Minimal Loss Hashing for Compact Binary Codes", ICML 2011."""
    def __init__(self, n_bits: int = 32, seed: int = 0, target: Optional[Dict[str, Any]] = None, *, epochs: int = 50, hyperparameters: str = 'validate', lambda: float = 1.0, learning_rate: float = 0.1, momentum: float = 0.9, pairs_per_epoch: int = 100000, validation_epochs: int = 20, validation_items: int = 1000) -> None: ...
