% One SGD epoch of the authors' Minimal Loss Hashing code (Norouzi and
% Fleet's learnMLH.m) under Octave, on the problem the peers bench wrote
% (crates/hashbench-bench/benches/peers/fixed_work.rs): X (d x n, f64) and
% the 0/1 neighbour matrix S (n x n) in SCRATCH, which also holds the
% compiled loss_adj_inf_mex. Run with one thread each for BLAS and OpenMP:
%   OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 octave-cli scripts/mlh-epoch.m MLH_DIR SCRATCH N D BITS RUNS
% Prints "median seconds: T" over RUNS timed epochs after a warm-up.

args = argv();
[mlh_dir, scratch] = deal(args{1}, args{2});
[n, d, bits, runs] = deal(str2double(args{3}), str2double(args{4}), str2double(args{5}), ...
                          str2double(args{6}));
addpath(scratch);
addpath(mlh_dir);
more off;

function m = read_f64(file, rows, cols)
  fid = fopen(file, 'r', 'ieee-le');
  m = fread(fid, [rows, cols], 'double');
  fclose(fid);
end

data.MODE = 'peers-bench';
data.Xtraining = read_f64(fullfile(scratch, 'x.f64'), d, n);
data.Straining = read_f64(fullfile(scratch, 's.f64'), n, n) > 0;
data.Ntraining = n;

% the settings of the release's RUN.m for one validation epoch, no evaluation
param.nb = bits;
param.eta = 0.1;
param.shrink_eta = 0;
param.size_batches = 100;
param.maxiter = 2;
param.nval_during = 0;
param.nval_after = 0;
param.zerobias = 1;
param.momentum = 0.9;
param.shrink_w = 1e-4;
param.loss.type = 'hinge';
param.loss.rho = 3;
param.loss.lambda = 0.5;
param.trainset = 'trainval';
param.mode = data.MODE;
param.Ntraining = n;

randn('state', 2);
initW = [.1 * randn(bits, d), zeros(bits, 1)];
times = zeros(1, runs + 1);
for r = 1:runs + 1
  rand('state', 100 + r);
  start = tic;
  learnMLH(data, param, 0, initW);
  times(r) = toc(start);
end
printf('median seconds: %.6f\n', median(times(2:end)));
