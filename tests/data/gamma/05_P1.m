Network 05_P1 {
Layer L05 {
Type: CONV
Dimensions { K: 64, C: 64, Y: 56, X: 56, R: 3, S: 3 }
Dataflow {
SpatialMap(1,1) K;
TemporalMap(56,56) Y';
TemporalMap(3,3) S;
TemporalMap(3,3) R;
TemporalMap(3,3) C;
TemporalMap(55,55) X';
Cluster(14,P);
TemporalMap(3,3) R;
SpatialMap(1,1) Y';
TemporalMap(1,1) X';
TemporalMap(1,1) K;
TemporalMap(1,1) C;
TemporalMap(3,3) S;
}
}
}
