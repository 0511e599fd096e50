% The reference codes' training steps, timed under Octave on the data the fit
% bench (crates/hashbench-bench/benches/fit.rs) wrote: what the MATLAB releases
% do, written here from their published algorithms (HABIR's trainPCAH/trainSH:
% eigs of cov(X); LSH: randn; KLSH, Kulis and Grauman's release: the centred
% kernel matrix of p sampled items, its inverse square root, one random subset
% of t items per bit). Run with one BLAS thread:
%   OPENBLAS_NUM_THREADS=1 octave-cli scripts/octave-fit-bench.m FILE N D BITS...
% Prints one line per fit: "method bits median-seconds".

args = argv();
file = args{1};
n = str2double(args{2});
d = str2double(args{3});
bits_list = cellfun(@str2double, args(4:end))(:)';
fid = fopen(file, 'r', 'ieee-le');
X = fread(fid, [n, d], 'double');
fclose(fid);
runs = 5;

function s = median_time(f, runs)
  t = zeros(runs, 1);
  for r = 1:runs
    tic; f(); t(r) = toc;
  end
  s = median(t);
end

function pc = pcah(X, b)
  [pc, ~] = eigs(cov(X), b);
end

function model = sh(X, b)
  [pc, ~] = eigs(cov(X), b);
  Y = X * pc;
  mn = min(Y) - eps;
  mx = max(Y) + eps;
  R = mx - mn;
  max_mode = ceil((b + 1) * R / max(R));
  n_modes = sum(max_mode) - length(max_mode) + 1;
  modes = ones(n_modes, b);
  m = 1;
  for i = 1:b
    modes(m + 1:m + max_mode(i) - 1, i) = 2:max_mode(i);
    m = m + max_mode(i) - 1;
  end
  modes = modes - 1;
  omegas = modes .* repmat(pi ./ R, [n_modes 1]);
  [~, order] = sort(sum(omegas .^ 2, 2));
  model = struct('pc', pc, 'mn', mn, 'mx', mx, 'modes', modes(order(2:b + 1), :));
end

function W = lsh(X, b)
  W = randn(columns(X), b);
end

function W = klsh(X, b)
  p = 300; t = 30;
  S = X(randperm(rows(X), p), :);
  sq = sum(S .^ 2, 2);
  D2 = max(sq + sq' - 2 * (S * S'), 0);
  sigma = mean(sqrt(D2(:)));
  K = exp(-D2 / (2 * sigma ^ 2));
  H = eye(p) - ones(p) / p;
  K = H * K * H;
  [V, L] = eig((K + K') / 2);
  l = diag(L);
  keep = l > 1e-10 * max(l);
  root_inv = V(:, keep) * diag(1 ./ sqrt(l(keep))) * V(:, keep)';
  E = zeros(p, b);
  for k = 1:b
    E(randperm(p, t), k) = 1;
  end
  W = root_inv * E;
end

for b = bits_list
  printf('LSH %d %.6f\n', b, median_time(@() lsh(X, b), runs));
  printf('PCAH %d %.6f\n', b, median_time(@() pcah(X, b), runs));
  printf('SH %d %.6f\n', b, median_time(@() sh(X, b), runs));
  printf('KLSH %d %.6f\n', b, median_time(@() klsh(X, b), runs));
end
