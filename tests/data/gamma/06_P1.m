Network 06_P1 {
Layer L06 {
Type: CONV
Dimensions { K: 384, C: 256, Y: 15, X: 15, R: 3, S: 3 }
Dataflow {
TemporalMap(5,5) C;
TemporalMap(3,3) S;
SpatialMap(25,25) K;
TemporalMap(3,3) R;
TemporalMap(14,14) X';
TemporalMap(15,15) Y';
Cluster(16,P);
TemporalMap(1,1) Y';
SpatialMap(1,1) K;
TemporalMap(3,3) R;
TemporalMap(1,1) C;
TemporalMap(1,1) X';
TemporalMap(3,3) S;
}
}
}
